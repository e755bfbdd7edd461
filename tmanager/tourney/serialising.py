"""A :class:`~tmanager.tourney.model.Tourney` as TOML data: the user's part, and the owned sections before
``[progress]`` (which :mod:`tmanager.tourney.store` lays out itself, for its changes in place).

Values at their defaults are left out where people would not look for them
(adjudication, a participant's overrides), and kept where they would
(``[tourney]``, ``[openings]``, ``[sprt]``, ``[spsa]``): see :func:`tmanager.tomlmap.to_table`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tmanager.tomlmap import to_table
from tmanager.tourney import amendments

if TYPE_CHECKING:
    from tmanager.tourney.model import Tourney


def settings_to_toml(tourney: Tourney) -> dict[str, Any]:
    """The user's part of the file (everything before the owned tail) as TOML data."""
    data: dict[str, Any] = {"tourney": to_table(tourney.settings, keep_defaults=True)}
    if tourney.openings:
        data["openings"] = to_table(tourney.openings, keep_defaults=True)
    adjudication = to_table(tourney.adjudication, keep_defaults=False)
    if adjudication:
        data["adjudication"] = adjudication
    if tourney.sprt:
        data["sprt"] = to_table(tourney.sprt, keep_defaults=True)
    if tourney.spsa:
        data["spsa"] = to_table(tourney.spsa, keep_defaults=True)
    data["participants"] = [to_table(p, keep_defaults=False) for p in tourney.participants]
    return data


def owned_sections_to_toml(tourney: Tourney) -> dict[str, Any]:
    """The owned sections before ``[progress]`` (Swiss pairings, fault counts) as TOML data."""
    data: dict[str, Any] = {}
    if tourney.swiss:
        data["swiss"] = {"rounds": [[list(pair) for pair in r] for r in tourney.swiss]}
    if tourney.faults:
        data["faults"] = tourney.faults
    if tourney.verdict:
        data["verdict"] = to_table(tourney.verdict, keep_defaults=True)
    if tourney.amendments:
        data["amendments"] = amendments.to_toml(tourney.amendments)
    if tourney.tuning:
        data["tuning"] = to_table(tourney.tuning, keep_defaults=False)  # no pair under way: no begun = []
    return data
