"""TRF-2026's ``192``, the tournament-type code (FIDE's code table for it, ETT26), read into a division's system.

Each code of the table is either one tmanager pairs, read into the system, the
cycles of a round robin, a team division's primary score and the Baku
acceleration; or a FIDE system tmanager does not pair (the Dutch rules of 2017,
Dubov, Burstein, the team Swiss with Type B or no colour preferences, Schiller,
Scheveningen), refused with what it is and what to write instead: pairing those
rounds on by other rules would change the event. ``CUSTOM_…`` codes (an
organiser's own system) import as a manual division. Any other code is refused:
a typing slip must not turn a Swiss into a manual division unnoticed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tmanager.core.teams import TeamScore
from tmanager.errors import ConfigError
from tmanager.events.model import PairingSystem


@dataclass(frozen=True, slots=True)
class TypeCode:
    """What a ``192`` code says of a division: its system, a round robin's cycles, which team score ranks first
    (``primary``) and whether the Baku acceleration applies."""

    system: PairingSystem
    cycles: int = 1
    primary: TeamScore = TeamScore.MATCH
    baku: bool = False


_BAKU = "_BAKU"
#: The codes (without ``_BAKU``) of the systems tmanager pairs.
_PAIRED = {
    **dict.fromkeys(("FIDE_DUTCH", "FIDE_DUTCH_2025", "FIDE_DUTCH_2026"), PairingSystem.DUTCH),
    "FIDE_DOUBLESWISS": PairingSystem.DOUBLE_SWISS,
    **dict.fromkeys(("FIDE_TEAM_TYPEA_MP_GP", "FIDE_TEAM_TYPEA_MP", "FIDE_TEAM_TYPEA_GP_MP", "FIDE_TEAM_TYPEA_GP"),
                    PairingSystem.TEAM_SWISS),
}  # fmt: skip
#: Round robins: FIDE's (``FIDE_…``, ``FIDE_TEAM_…``) and the Berger tables' (``BERGER_…``, cycles as ``_Gn``).
_ROUND_ROBIN = re.compile(r"(?:FIDE|BERGER)_(?:TEAM_)?(DOUBLE)?ROUNDROBIN(?:_G(\d+))?")
#: FIDE's systems tmanager does not pair, by their codes (patterns), and what each is.
_NOT_PAIRED = {
    "FIDE_DUTCH_2017": "the Dutch system by its rules of 2017",
    "FIDE_DUBOV": "the Dubov system",
    "FIDE_BURSTEIN": "the Burstein system",
    "FIDE_TEAM_TYPEB(_MP|_GP)(_MP|_GP)?": "the Swiss team system with Type B colour preferences",
    "FIDE_TEAM((_MP|_GP)(_MP|_GP)?)?": "the Swiss team system with no colour preference type",
    "FIDE_SCHILLER(_.+)?": "a Schiller tournament",
    "FIDE_(DOUBLE)?SCHEVENINGEN(_.+)?": "a Scheveningen tournament",
}
_PAIRS = "FIDE_DUTCH_2025 (also _BAKU), FIDE_DOUBLESWISS, FIDE_TEAM_TYPEA_… and the FIDE_… and BERGER_… round robins"
_MANUAL = "CUSTOM_SWISS or CUSTOM_TEAM_SWISS to import the rounds as a manual division"


def read_type_code(code: str, *, file: Path | None) -> TypeCode:
    """The division ``192``'s ``code`` describes; :class:`ConfigError` naming the code when tmanager does not pair
    that system (or does not know the code)."""
    code = code.strip().upper()
    base, baku = (code.removesuffix(_BAKU), True) if code.endswith(_BAKU) else (code, False)
    scores = re.search(r"_(MP|GP)(_MP|_GP)?$", base)  # the team scores, the primary one first
    primary = TeamScore.from_code(scores[1]) if scores else TeamScore.MATCH
    if base.startswith("CUSTOM_"):
        return TypeCode(PairingSystem.MANUAL, primary=primary)
    found = _ROUND_ROBIN.fullmatch(base)
    system = PairingSystem.ROUND_ROBIN if found else _PAIRED.get(base)
    if system is None:
        what = next((text for pattern, text in _NOT_PAIRED.items() if re.fullmatch(pattern, base)), None)
        told = f"{code} is {what}, which tmanager does not pair" if what else f"{code!r} is no tournament-type code"
        hint = f"tmanager pairs {_PAIRS}; write one of those, or {_MANUAL}"
        raise ConfigError(told, file=file, field="192", hint=hint)
    if baku and system != PairingSystem.DUTCH:
        raise ConfigError(f"{code}: tmanager accelerates the Dutch system only", file=file, field="192",
                          hint=f"write {base} without {_BAKU}, or {_MANUAL}")  # fmt: skip
    cycles = 1
    if found:
        cycles = int(found[2]) if found[2] else 2 if found[1] else 1
    return TypeCode(system, cycles, primary, baku)
