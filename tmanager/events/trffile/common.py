"""What the TRF writer and reader share: the names and codes of the systems, the byes' record
codes, the settings an ``XTM event`` line carries, and a player's ``001`` columns written and read back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tmanager.core.playerfields import Sex, player_fault
from tmanager.core.results import ByeKind
from tmanager.errors import ConfigError
from tmanager.events.model import PairingSystem, Player
from tmanager.formats import trf, trf_records

SYSTEM_NAMES = {
    PairingSystem.DUTCH: "Swiss system (FIDE Dutch)", PairingSystem.ROUND_ROBIN: "Round robin (Berger)",
    PairingSystem.MANUAL: "Manual", PairingSystem.DOUBLE_SWISS: "Double-Swiss system (FIDE C.04.5)",
    PairingSystem.TEAM_SWISS: "Swiss system for teams (FIDE C.04.6)",
}  # fmt: skip
#: A team division's round fields, kept in the ``XTM round`` lines.
TEAM_ROUND_KEYS = ("matches", "lineups", "team_byes", "forced_matches")
#: TRF-2026 ``240`` records' codes of the byes a player requests.
BYE_RECORDS = {
    ByeKind.FULL: trf_records.ByeCode.FULL, ByeKind.HALF: trf_records.ByeCode.HALF,
    ByeKind.ZERO: trf_records.ByeCode.ZERO,
}


def trf_date(text: str) -> str:
    if not text:
        return ""
    return text.replace("-", "/") if len(text) == 10 else f"{text}/00/00"


def event_date(text: str) -> str:
    text = text.strip()
    if text.endswith("/00/00"):
        return text[:4]
    return text.replace("/", "-") if text else ""


def player_header(p: Player, rank: int) -> str:
    """Columns 1–80 of a player line, the player's starting ``rank`` in 5–8."""
    rating = str(p.rating) if p.rating else ""
    fide_id = str(p.fide_id) if p.fide_id is not None else ""
    return (
        f"001 {rank:4d} {p.sex.value or ' '}{p.title:3.3} {p.name[:33]:33} {rating:>4.4} {p.federation[:3]:3} "
        f"{fide_id:>11.11} {trf_date(p.birth):10.10} "
    )


#: The titles as TRF-06 and the programs still writing it code them (``g``, ``wm``): read as TRF-16 writes them.
_TRF06_TITLES = {"g": "GM", "m": "IM", "f": "FM", "c": "CM", "wg": "WGM", "wm": "WIM", "wf": "WFM", "wc": "WCM"}


def read_player_header(line: trf.TrfPlayer, *, file: Path | None = None) -> dict[str, Any]:
    """The player fields a ``001`` line holds; a sex written in capitals (``M``, ``F``, as FIDE's lists) and a
    title in TRF-06's letters (``g``, ``wm``) read as TRF-16 writes them; a FIDE ID 0 is none. A rating, FIDE ID
    or sex that is none of these is refused: read as not given, it made a rated player unrated without a word."""
    h = line.header.ljust(80)
    sex = h[9].strip()
    # 0 is how several pairing programs write "no FIDE ID" (FIDE's own files leave the columns blank): read as
    # none, it is written back blank; taken as an ID it refused the whole file.
    fide_id = trf.header_number(h, line.id, "fide_id", file=file) or None
    if sex and not Sex.read(sex):
        raise ConfigError(f"{sex!r} in column 10 is not a sex", file=file, field=f"player {line.id}: sex",
                          hint="write m or w, as FIDE's lists M or F; blank when not given")  # fmt: skip
    title = h[10:13].strip()
    read = {
        "name": line.name,
        "title": _TRF06_TITLES.get(title.lower(), title.upper()),
        "rating": trf.header_number(h, line.id, "rating", file=file) or 0,
        "federation": h[53:56].strip(),
        "fide_id": fide_id,
        "sex": Sex.read(sex),
        "birth": event_date(h[69:79]),
    }
    # Checked here, naming the line's columns: the event file's check named the event's field instead
    # ('bad.trf: division[1].player[2].federation: …'), a file the arbiter never saw.
    fault = player_fault(read)
    if fault is not None:
        key, what = fault
        field = f"player {line.id}: {_FIELDS.get(key, key)} in {_COLUMNS[key]}"
        raise ConfigError(what, file=file, field=field)
    return read


#: The ``001`` columns of the fields :func:`~tmanager.core.playerfields.player_fault` checks, as a refusal names
#: them; and the fields a TRF line names otherwise than the event file.
_COLUMNS = {"sex": "column 10", "title": "columns 11-13", "rating": "columns 49-52", "federation": "columns 54-56",
            "fide_id": "columns 58-68", "birth": "columns 70-79"}  # fmt: skip
_FIELDS = {"fide_id": "FIDE ID"}


#: Settings the ``XTM event`` line carries to the event and to the division.
EVENT_KEYS = ("tiebreaks", "late_entry", "max_byes", "stylesheet", "rating_list", "categories", "prizes",
               "schedule", "time_control")  # fmt: skip
DIVISION_KEYS = ("system", "cycles", "initial_colour", "forbidden", "team_apart", "start_numbers", "acceleration",
                  "baku_last", "team")  # fmt: skip
