"""A tourney file's parsed TOML (see :mod:`tomllib`) as a :class:`~tmanager.tourney.model.Tourney`, checked.

Each section is read through :mod:`tmanager.tomlmap` into its dataclass; the
owned sections (``[swiss]``, ``[faults]``, ``[verdict]``, ``[amendments]``, ``[tuning]``, and
``[claims]`` of older versions) are read here too. The whole is then validated
(:func:`~tmanager.tourney.validation.validate`). The layout of the file and the
reading of its owned part in place are :mod:`tmanager.tourney.store`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tmanager.core.sprt import Verdict
from tmanager.core.spsa import TuneSettings, TuneState
from tmanager.core.stats import SprtSettings
from tmanager.errors import ConfigError, ascii_digits
from tmanager.tomlmap import check_keys, from_table
from tmanager.tourney import amendments
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.alphabet import RESULT_CHARS, UNPLAYED
from tmanager.tourney.jsonvalues import LARGEST
from tmanager.tourney.model import OWNED_SECTIONS, Claim, Tourney
from tmanager.tourney.settings import Openings, Participant, Settings
from tmanager.tourney.validation import validate


def from_toml(data: Mapping[str, Any], path: Path) -> Tourney:
    """Build and validate a :class:`Tourney` from a parsed tourney file."""
    allowed = {"tourney", "openings", "adjudication", "sprt", "spsa", "participants", *OWNED_SECTIONS}
    for key in data:
        if key not in allowed:
            raise ConfigError(
                f"unknown section {key!r}", file=path, hint=f"sections are: {', '.join(sorted(allowed))}"
            )
    settings = from_table(Settings, data.get("tourney", {}), "tourney", path)
    raw_participants = data.get("participants", [])
    if not isinstance(raw_participants, list):
        raise ConfigError("must be an array of tables ([[participants]])", file=path, field="participants")
    participants = [
        from_table(Participant, table, f"participants[{i}]", path) for i, table in enumerate(raw_participants)
    ]
    openings = from_table(Openings, data["openings"], "openings", path) if "openings" in data else None
    adjudication = from_table(Adjudication, data.get("adjudication", {}), "adjudication", path)
    sprt = from_table(SprtSettings, data["sprt"], "sprt", path) if "sprt" in data else None
    spsa = from_table(TuneSettings, data["spsa"], "spsa", path) if "spsa" in data else None
    progress = data.get("progress", {})
    check_keys(progress, {"results", "version", "participants"}, "progress", path)
    results = progress.get("results", "")
    if not isinstance(results, str):
        raise ConfigError("must be a string", file=path, field="progress.results")
    bad = next((c for c in results if c not in RESULT_CHARS), None)
    if bad is not None:
        raise ConfigError(
            f"foreign character {bad!r} at game {results.index(bad)}",
            file=path,
            field="progress.results",
            hint='use only "+", "-", "=", "*" and space',
        )
    tourney = Tourney(
        path=path,
        settings=settings,
        participants=participants,
        openings=openings,
        adjudication=adjudication,
        sprt=sprt,
        spsa=spsa,
        swiss=_read_swiss(data.get("swiss", {}), path),
        claims=_read_claims(data.get("claims", {}), path),
        faults=_read_faults(data.get("faults", {}), path),
        verdict=from_table(Verdict, data["verdict"], "verdict", path) if "verdict" in data else None,
        amendments=amendments.from_toml(data.get("amendments", {}), path),
        tuning=from_table(TuneState, data["tuning"], "tuning", path) if "tuning" in data else None,
        results=results.rstrip(UNPLAYED),
    )
    validate(tourney, outputs=False)  # a read: those who write check (validate, preflight)
    return tourney


def _read_claims(table: Any, path: Path) -> dict[int, Claim]:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=path, field="claims")
    claims = {}
    for key, value in table.items():
        if not ascii_digits(key):
            raise ConfigError(f"key {key!r} is not a game number", file=path, field="claims")
        claims[int(key)] = from_table(Claim, value, f"claims.{key}", path)
    return claims


def _read_faults(table: Any, path: Path) -> dict[str, dict[str, int]]:
    if not isinstance(table, dict) or not all(isinstance(counts, dict) for counts in table.values()):
        raise ConfigError("must map engine names to tables of counts", file=path, field="faults")
    for name, counts in table.items():
        for kind, count in counts.items():
            # A count typed by hand below 0, past TOML's 64 bits or as true was shown and added to as it was.
            if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= LARGEST:
                raise ConfigError(
                    f"must be a whole number from 0 to {LARGEST:,}, not {count!r}"[:200], file=path,
                    field=f"faults.{name}.{kind}", hint="a count tmanager keeps: put back the one it wrote",
                )
    return {name: dict(counts) for name, counts in table.items()}


def _read_swiss(table: Any, path: Path) -> list[list[tuple[int, int]]]:
    if not isinstance(table, dict):
        raise ConfigError("must be a table", file=path, field="swiss")
    check_keys(table, {"rounds"}, "swiss", path)
    if not isinstance(table.get("rounds", []), list):
        raise ConfigError("must be a list of rounds", file=path, field="swiss.rounds")
    rounds = []
    for r, boards in enumerate(table.get("rounds", [])):
        # Participants' numbers as written: int() took 0.5 for 0, true for 1 and "2" for 2, and wrote them back so.
        if not isinstance(boards, list) or not all(
            isinstance(board, list) and len(board) == 2
            and all(isinstance(p, int) and not isinstance(p, bool) for p in board)
            for board in boards
        ):
            raise ConfigError(
                "each round must be a list of [white, black] pairs of participants' numbers (0, 1, …)",
                file=path, field=f"swiss.rounds[{r}]", hint="remove the round to pair it again",
            )
        rounds.append([(white, black) for white, black in boards])
    return rounds
