"""An event read from a TRF file: tmanager's own (its ``XTM`` lines restore what TRF cannot hold) or another
program's (:mod:`tmanager.events.trffile` says what is read)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tmanager import tomlmap
from tmanager.core import teamtiebreaks, tiebreaknames
from tmanager.core.results import ByeKind, Colour, Result, TrfResult
from tmanager.core.teams import TeamScore
from tmanager.errors import ConfigError
from tmanager.events.checks import check_player
from tmanager.events.eventfile import check, prize_fund
from tmanager.events.games import ABSENT
from tmanager.events.model import Acceleration, Board, Division, Event, PairingSystem, Player, Round, TeamSettings
from tmanager.events.teamtrf import teams_from_trf
from tmanager.events.trffile.common import (
    BYE_RECORDS,
    DIVISION_KEYS,
    EVENT_KEYS,
    SYSTEM_NAMES,
    TEAM_ROUND_KEYS,
    event_date,
    read_player_header,
)  # fmt: skip
from tmanager.events.trffile.typecodes import read_type_code
from tmanager.formats import trf, trf_records, trf_teams


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
        "start": event_date(_first(header, "042")),
        "end": event_date(_first(header, "052")),
        "arbiter": _first(header, "102"),
        "deputies": header.get("112", []),
        **{key: meta[key] for key in EVENT_KEYS if key in meta},
    }
    event = tomlmap.from_table(Event, settings, where, file)
    event.hooks = dict(meta.get("hooks", {}))
    event.scoring = tournament.points
    colour = tournament.initial_colour.word if tournament.initial_colour else None
    by_id = {p.id: p for p in tournament.players}
    # A starting rank is the player's number, unless the XTM player line names another (numbers with gaps).
    numbers = {p.id: extras["player"].get(p.id, {}).get("number", p.id) for p in tournament.players}
    unknown = [n for group in tournament.forbidden for n in group if n not in by_id]
    if unknown:
        raise ConfigError(f"a prohibited pairing names starting rank {unknown[0]}, which no 001 line has", file=file,
                          hint="name players by their 001 lines' starting ranks, or take the rank out")  # fmt: skip
    table = {
        "name": meta.get("division", "main"),
        "forbidden": [sorted(numbers[n] for n in group) for group in tournament.forbidden],
        **({"initial_colour": colour} if colour else {}),
        **{key: meta[key] for key in DIVISION_KEYS if key in meta},
    }
    division = tomlmap.from_table(Division, table, where, file)
    if "team_settings" in meta:
        division.team_settings = tomlmap.from_table(TeamSettings, meta["team_settings"], where, file)
    if "prize_fund" in meta:
        division.prize_fund = prize_fund(meta["prize_fund"], f"{where}.prize_fund", file)
    order = list(extras["player"]) or [p.id for p in tournament.players]
    for rank in order:
        if rank not in by_id:
            raise ConfigError(f"XTM player {rank} has no 001 line", file=file,
                              hint="give the player's 001 line, or take the XTM player line out")  # fmt: skip
        division.players.append(_import_player(by_id[rank], extras["player"].get(rank), numbers[rank], file))
    for n in range(1, tournament.played_rounds + 1):
        data = extras["round"].get(n, {})
        division.rounds.append(_with_teams(_import_round(tournament, n, numbers, data, file), data, file))
    for n, data in sorted(extras["round"].items()):
        if n > tournament.played_rounds:
            division.rounds.append(_with_teams(_later_round(n, data), data, file))
    _requested_byes(tournament, division, numbers)
    if "event" not in extras:
        _upcoming_entries(tournament, division, numbers, event.total_rounds(division))
    if "event" not in extras and _team_file(tournament):
        code = _first(header, "192")
        primary = read_type_code(code, file=file).primary if code else TeamScore.MATCH
        teams_from_trf(tournament, division, primary=primary, tiebreaks=meta.get("team_tiebreaks"), file=file)
    event.divisions.append(division)
    _check_event(event, file)
    return event


#: The event's fields a TRF's header records give, by the record's code.
_HEADER_FIELDS = {"name": "012", "site": "022", "federation": "032", "start": "042", "end": "052", "arbiter": "102",
                  "deputies": "112"}  # fmt: skip


def _check_event(event: Event, file: Path | None) -> None:
    """The event file's check of ``event``; a field a header record gave is named by its record (``042 (start)``),
    where the refusal named the event file's field (``event.start``), of a file the arbiter never saw."""
    try:
        check(event, file)
    except ConfigError as exc:
        field = exc.field or ""
        key = field.removeprefix("event.")
        code = _HEADER_FIELDS.get(key.partition("[")[0]) if key != field else None
        if code is None:
            raise
        raise exc.relocated(file=file, field=f"{code} ({key})") from None


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
    code = _first(header, "192")
    baku = False
    if code:
        typed = read_type_code(code, file=file)
        settings["system"], baku = typed.system, typed.baku
        if typed.cycles != 1:
            settings["cycles"] = typed.cycles
    elif _team_file(tournament):  # TRF-16: the system as 092 names it, if tmanager's words
        systems = {name: system for system, name in SYSTEM_NAMES.items()}
        settings["system"] = systems.get(_first(header, "092"), PairingSystem.MANUAL)
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
            raise ConfigError(f"202: {exc}", file=file,
                              hint="name FIDE's tie-breaks as the TieBreakServer does: BH/C1,SB,DE") from None
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
    if last is not None or baku:
        settings["acceleration"], settings["baku_last"] = Acceleration.BAKU.value, last
    return settings


def _read_extra(rest: str, extras: dict[str, Any], file: Path | None) -> None:
    kind, _, tail = rest.partition(" ")
    try:
        if kind == "event":
            extras["event"] = json.loads(tail)
            _check_shape(extras["event"], dict, f"XTM {kind}", file)
        elif kind in ("player", "round"):
            key, _, data = tail.partition(" ")
            number = int(key)
            if number < 1:  # no round (or starting rank) 0 reads back: the line was dropped without a word
                raise ConfigError(f"there is no {kind} {number}; they start at 1", file=file,
                                  field=f"XTM {kind} {number}", hint=_XTM_HINT)  # fmt: skip
            extras[kind][number] = json.loads(data)
            _check_shape(extras[kind][number], dict, f"XTM {kind} {number}", file)
            if kind == "round":
                _check_round(extras[kind][number], f"XTM {kind} {number}", file)
        else:  # a kind tmanager does not write (a typo, a later version's) was dropped without a word
            raise ConfigError(f"{kind[:40]!r} is not a kind of XTM line (tmanager writes event, player and round "
                              "lines)", file=file, field="XTM", hint=_XTM_HINT)  # fmt: skip
    except (ValueError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"bad XTM {kind} line: {exc}", file=file, hint=_XTM_HINT
        ) from None


#: What to do with an ``XTM`` line that does not read.
_XTM_HINT = "the line is tmanager's; fix or remove it"
#: The lists an ``XTM round`` line may hold, with the types of each item's fields (a board's result is optional).
_ROUND_LISTS = {
    "boards": (int, int, str), "byes": (int, str), "forced": (int, int), "adjourned": (int,), "unrated": (int, int),
}  # fmt: skip


def _check_shape(value: Any, kind: type, where: str, file: Path | None) -> None:
    """Refuse a value of an ``XTM`` line that is not of the type tmanager writes there (a line edited by hand)."""
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise ConfigError(f"must be {'an object' if kind is dict else kind.__name__}, not {value!r}"[:200],
                          file=file, field=where, hint=_XTM_HINT)  # fmt: skip


def _check_round(data: Mapping[str, Any], where: str, file: Path | None) -> None:
    """Refuse the lists of an ``XTM round`` line whose items are not what tmanager writes."""
    for key, types in _ROUND_LISTS.items():
        items = data.get(key, [])
        _check_shape(items, list, f"{where}.{key}", file)
        for item in items:
            fields = [item] if key == "adjourned" else item
            _check_shape(fields, list, f"{where}.{key}", file)
            if not min(2, len(types)) <= len(fields) <= len(types):
                raise ConfigError(f"{fields!r} is not {len(types)} values"[:200], file=file, field=f"{where}.{key}",
                                  hint=_XTM_HINT)  # fmt: skip
            for value, kind in zip(fields, types, strict=False):
                _check_shape(value, kind, f"{where}.{key}", file)
    for board in data.get("boards", []):
        try:
            if len(board) > 2:
                Result.parse(board[2])
        except ValueError as exc:
            raise ConfigError(str(exc), file=file, field=f"{where}.boards", hint="the line is tmanager's") from None
    kinds = {kind.value for kind in ByeKind}
    for _, kind in data.get("byes", []):
        if kind not in kinds:
            raise ConfigError(f"{kind!r} is not a bye (one of {', '.join(sorted(kinds))})"[:200], file=file,
                              field=f"{where}.byes", hint=_XTM_HINT)  # fmt: skip
    _check_shape(data.get("paired", True), bool, f"{where}.paired", file)
    if data.get("forced_bye") is not None:
        _check_shape(data["forced_bye"], int, f"{where}.forced_bye", file)


def _import_player(line: trf.TrfPlayer, extras: dict[str, Any] | None, number: int, file: Path | None) -> Player:
    read = read_player_header(line, file=file)
    data = {key: value for key, value in read.items() if value is not None}
    data.update({k: v for k, v in (extras or {}).items() if k != "number"})
    player = tomlmap.from_table(Player, {"number": number, **data}, f"XTM player {line.id}", file)
    # Checked here, naming the line that gave the field: the event file's check named the event's field
    # ('bad.trf: division[1].player[1].k: …'), of a file the arbiter never saw.
    try:
        check_player(player)
    except ConfigError as exc:
        where = "XTM player" if exc.field in (extras or {}) else "player"
        raise exc.relocated(file=file, field=f"{where} {line.id}: {exc.field}") from None
    return player


def _import_round(
    tournament: trf.Tournament, n: int, numbers: Mapping[int, int], extras: dict[str, Any], file: Path | None
) -> Round:
    record = Round(n, paired=True, forced_bye=extras.get("forced_bye"))
    record.forced = [(w, b) for w, b in extras.get("forced", [])]
    boards: dict[tuple[int, int], Board] = {}
    unrated: set[tuple[int, int]] = set()  # games played but not rated: W D L
    entries = {p.id: p.games[n - 1] if len(p.games) >= n else ABSENT for p in tournament.players}
    for rank, game in entries.items():
        if game.opponent is None:
            kind = ByeKind.from_trf(game.result)
            if kind is not None:
                record.byes[numbers[rank]] = kind
            continue
        if game.colour is Colour.BLACK or (game.colour is None and rank > game.opponent):
            continue
        theirs = entries[game.opponent]
        white, black = numbers[rank], numbers[game.opponent]
        result = _result(n, (rank, game.result), (game.opponent, theirs.result), file)
        boards[(white, black)] = Board(white, black, result)
        if any(code.played and code.rated_score is None for code in (game.result, theirs.result)):
            unrated.add((white, black))
    order = [(b[0], b[1]) for b in extras.get("boards", [])] or sorted(boards)
    record.boards = [boards[(w, b)] for w, b in order if (w, b) in boards]
    record.unrated = [(w, b) for w, b in extras.get("unrated", [])] or [g for g in order if g in unrated]
    if len(record.boards) != len(boards):
        # (no file was named: the line read 'tmanager: round 2: …')
        raise ConfigError("its board list does not match the player lines' games of the round", file=file,
                          field=f"XTM round {n}", hint="make the XTM round's boards the games of the 001 lines, "
                          "or take the XTM lines out to read the player lines alone")  # fmt: skip
    if "byes" in extras:  # the event's order of the byes
        bye_order = [n for n, _ in extras["byes"]]
        record.byes = dict(
            sorted(
                record.byes.items(),
                key=lambda item: bye_order.index(item[0]) if item[0] in bye_order else len(bye_order),
            )
        )
    for index in extras.get("adjourned", []):
        if not 1 <= index <= len(record.boards):
            raise ConfigError(f"round {n} has no board {index}", file=file, field=f"XTM round {n}.adjourned",
                              hint=f"list boards 1 to {len(record.boards)}")  # fmt: skip
        record.boards[index - 1].result = Result.ADJOURNED
    return record


def _result(n: int, white: tuple[int, TrfResult], black: tuple[int, TrfResult], file: Path | None) -> Result:
    """The result of a game of round ``n`` from both players' entries (starting rank and code). Entries that make
    no one result (``1`` and ``1``, ``=`` and ``0``, ``+`` and ``+``, a result beside a blank) are refused: read as
    a game without a result, they lost both players' points of it without a word."""
    result = Result.from_trf(white[1], black[1])
    if result is None:
        raise ConfigError(
            f"round {n}: players {white[0]} and {black[0]} have {white[1].value!r} and {black[1].value!r}, which "
            "make no result of one game", file=file,
            hint="an event holds 1-0, ½-½, 0-1, a forfeit or no result yet: correct the entries",
        )  # fmt: skip
    return result


def _later_round(n: int, data: Mapping[str, Any]) -> Round:
    """A round the player lines leave out: one in progress (paired, results as far as they are in), or one being
    prepared (requested byes, forced games)."""
    record = Round(n, paired=data.get("paired", True), forced_bye=data.get("forced_bye"))
    record.boards = [Board(b[0], b[1], Result.parse(b[2]) if len(b) > 2 else Result.PENDING)
                     for b in data.get("boards", [])]  # fmt: skip
    record.byes = {p: ByeKind(k) for p, k in data.get("byes", [])}
    record.forced = [(w, b) for w, b in data.get("forced", [])]
    record.unrated = [(w, b) for w, b in data.get("unrated", [])]
    return record


def _with_teams(record: Round, extras: Mapping[str, Any], file: Path | None) -> Round:
    """``record`` with a team division's matches, lineups and byes from its ``XTM round`` line."""
    table = {key: extras[key] for key in TEAM_ROUND_KEYS if key in extras}
    teams = tomlmap.from_table(Round, {"number": record.number, **table}, f"XTM round {record.number}", file)
    record.matches, record.lineups = teams.matches, teams.lineups
    record.team_byes, record.forced_matches = teams.team_byes, teams.forced_matches
    return record


def _requested_byes(tournament: trf.Tournament, division: Division, numbers: Mapping[int, int]) -> None:
    """``240`` records of rounds the file does not hold yet become requested byes (as the XTM lines already say
    for tmanager's own files)."""
    kinds = {code: kind for kind, code in BYE_RECORDS.items()}
    for bye in tournament.values(trf_records.BYES):
        if bye.round <= tournament.played_rounds:
            continue
        record = division.round(bye.round, create=True)
        for player in bye.players:
            record.byes.setdefault(numbers.get(player, player), kinds[bye.kind])


def _upcoming_entries(
    tournament: trf.Tournament, division: Division, numbers: Mapping[int, int], total: int
) -> None:
    """Another program's entries of the round after the paired ones (``0000 - H``, ``0000 - -``), which pairing
    programs read as "not paired in the next round": requested byes, and absences for ``-``. (They were dropped,
    and the player who asked for a bye, or had withdrawn, was paired.) An entry of a round the event does not
    plan is no round of it."""
    played = tournament.played_rounds
    by_number = {p.number: p for p in division.players}
    for line in tournament.players:
        for n, game in enumerate(line.games[played:], played + 1):
            if game.opponent is not None or (total and n > total):
                continue
            kind = ByeKind.from_trf(game.result)
            if kind is not None and kind is not ByeKind.PAIRING:
                division.round(n, create=True).byes.setdefault(numbers[line.id], kind)
            elif game.result is TrfResult.FORFEIT_LOSS:
                player = by_number[numbers[line.id]]
                player.absent = sorted({*player.absent, n})


def read(path: Path) -> Event:
    """Read a TRF file as an event."""
    return loads(trf.read_text(path), file=path)
