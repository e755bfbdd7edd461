"""The ``[event]`` settings changed after ``event new`` (``tmanager event set``), as typed: ``KEY=VALUE`` words.

Most settings are read only where they are shown or used, and so may change at any time: the event's name,
place, dates, arbiters, schedule and time control (reports, pages, TRF headers), the tie-breaks, categories
and prize places (computed afresh for every report), ``late_entry`` (read when a late entry is made),
``max_byes`` (when a bye is asked for) and ``stylesheet``. Two were what the paired rounds were made with,
and stay once a round is paired (:data:`FIXED_ONCE_PAIRED`). ``[scoring]`` and ``[hooks]`` are not ``[event]``'s.

A division's settings (``set --division``, or the only division's keys that are not ``[event]``'s) are
its system, cycles, acceleration, round 1's colour and the rest of its own table, a score-based division's and a
team division's (:data:`DIVISION_SETTINGS`); once the division has a paired round only those its later rounds
read afresh may change (its name, team_apart, the repeats and factor of score-based pairings, prize bands, team
tie-breaks and the games for a board prize).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tmanager import tomlmap
from tmanager.core.playerfields import as_fide_writes, federation_fault
from tmanager.errors import ConfigError, ascii_digits
from tmanager.events import eventfile
from tmanager.events.eventfile import SCORED_KEYS, TEAM_KEYS, check, division_settings
from tmanager.events.model import Division, Event
from tmanager.events.reports.render import read_stylesheet

#: Why a setting stays as it is once a round of any division is paired.
FIXED_ONCE_PAIRED = {
    "rounds": "the rounds were paired for this many (the last rounds' pairing rules, Baku acceleration's "
    "virtual points, the norms' length)",
    "rating_list": "the players were entered, ranked and paired on this list's ratings",
}
#: Lists typed as words separated by commas (a deputy's name, "Last, First", holds one: repeat the key).
_COMMA_LISTS = frozenset({"schedule", "tiebreaks", "categories"})
_LISTS = _COMMA_LISTS | {"deputies"}
#: Whole numbers; ``max_byes=`` (nothing) takes the limit away.
_NUMBERS = frozenset({"rounds", "prizes", "max_byes"})
#: What ``set`` changes: the ``[event]`` table's keys.
SETTINGS = tuple(f.name for f in dataclasses.fields(Event) if not f.metadata.get("outside"))


def change_settings(
    event: Event, typed: Sequence[tuple[str, str]], *, division: str | None, directory: Path
) -> list[str]:
    """``set``: with ``division``, that division's settings ``typed``; else the ``[event]`` settings among them and
    the others the only division's (several divisions: one must be named). What changed."""
    if division is not None:
        return change_division_settings(event, division, typed)
    for key, _ in typed:
        if key not in SETTINGS and key not in DIVISION_SETTINGS:
            raise ConfigError("is not a setting of [event] or of a division", field=key,
                              hint="[event]'s: " + ", ".join(SETTINGS) + "; a division's (-d DIVISION for one of "
                              "several): " + ", ".join(DIVISION_SETTINGS))  # fmt: skip
    own = [(key, text) for key, text in typed if key in SETTINGS]
    rest = [(key, text) for key, text in typed if key not in SETTINGS]
    said = _change_event_settings(event, own, directory=directory) if own else []
    return said + (change_division_settings(event, None, rest) if rest else [])


def _refuse_once_paired(event: Event, key: str, paired: int, value: object) -> None:
    """Refuse a change of ``key`` (of :data:`FIXED_ONCE_PAIRED`) to ``value`` with round ``paired`` paired. An event
    of round robins alone uses no ``rounds`` (their rounds are the Berger table's), which the Swiss reasons did not
    say. An event that planned no rounds may plan them, no fewer than are paired: no round was paired for a number
    (nothing of the last rounds applied), and its TRF lacked the 142/XXR line pairing programs and rating officers
    read."""
    if key == "rounds" and all(d.round_robin for d in event.divisions):
        d = event.divisions[0]
        raise ConfigError(
            f"is not used by a round robin: its rounds are its players' and cycles' ({event.total_rounds(d)} in "
            f"division {d.name!r}), whatever rounds says",
            field=key,
            hint="change cycles, or enter or withdraw players, before round 1 is paired",
        )
    if key == "rounds" and event.rounds == 0:
        if isinstance(value, int) and value < paired:
            raise ConfigError(f"{value} is fewer than the {paired} rounds paired", field=key,
                              hint=f"plan {paired} rounds or more")  # fmt: skip
        return
    raise ConfigError(
        f"stays {_shown(getattr(event, key))} once a round is paired (round {paired} is): {FIXED_ONCE_PAIRED[key]}",
        field=key,
        hint="it can change before round 1 is paired",
    )


def _change_event_settings(event: Event, typed: Sequence[tuple[str, str]], *, directory: Path) -> list[str]:
    """Give ``event``, whose file is in ``directory``, the settings ``typed`` (key and text, in order; a list's key
    repeated adds to it); each refusal names the key as typed. What changed, one message."""
    table = tomlmap.to_table(event, keep_defaults=True)
    given: dict[str, list[str]] = {}
    for key, text in typed:
        given.setdefault(key, []).append(text)
    paired = max((d.paired_rounds for d in event.divisions), default=0)
    for key, texts in given.items():
        value = _value(key, texts)
        if paired and key in FIXED_ONCE_PAIRED and value != table.get(key):  # (before the file's check of it)
            _refuse_once_paired(event, key, paired, value)
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    changed = _checked(event, table, list(given))
    if "stylesheet" in given and changed.stylesheet:  # as the next report reads it: one missing was taken before
        read_stylesheet(directory / changed.stylesheet)
    said = []
    for key in given:
        old, new = getattr(event, key), getattr(changed, key)
        if old == new:
            continue
        setattr(event, key, new)
        said.append(f"{key} {_shown(new)} (was {_shown(old)})")
    return ["changed " + "; ".join(said)] if said else ["nothing to change: the settings are as given"]


def _value(key: str, texts: list[str]) -> Any:
    """A setting's value as the file holds it, from what was typed (the last one, but for a list)."""
    if key in _LISTS:
        items = [item.strip() for text in texts for item in (text.split(",") if key in _COMMA_LISTS else [text])]
        return [item for item in items if item]
    text = texts[-1].strip()
    if key == "federation" and text:  # typed as add-player's --federation: ned is NED, XYZ no federation
        text = as_fide_writes(key, text)
        fault = federation_fault(text)
        if fault is not None:
            raise ConfigError(fault, field=key)
    if key not in _NUMBERS:
        return text
    if not text and key == "max_byes":
        return None
    if not ascii_digits(text):
        raise ConfigError(f"{text[:40]!r} is not a whole number", field=key, hint=f"e.g. {key}=7")
    return int(text)


def _checked(event: Event, table: dict[str, Any], keys: list[str]) -> Event:
    """``event`` with its ``[event]`` table as ``table``, checked as the file would be (a refusal of one of
    ``keys`` named by the key alone, as typed)."""
    try:
        changed = tomlmap.from_table(Event, table, "event", None)
        changed.hooks, changed.scoring, changed.divisions = event.hooks, event.scoring, event.divisions
        check(changed)
    except ConfigError as exc:
        key = (exc.field or "").removeprefix("event.")
        if key not in keys:
            raise
        raise exc.relocated(field=key) from None
    return changed


def _shown(value: object) -> str:
    """A setting's value in a message: a word of a choice as it is typed, a list as its items, nothing as none."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, list):
        value = "; ".join(map(str, value))
    return repr(value) if value not in ("", None) else "none"


# --- a division's settings ------------------------------------------------------------------------------------

#: What the division's own verbs change (the players, teams, forbidden pairs, start numbers), and the Baku
#: group's last player, which round 1's pairing fixes: not ``set``'s.
_BY_VERBS = frozenset({"forbidden", "start_numbers", "baku_last", "teams", "players"})
#: What ``set --division`` changes: the division's keys, a score-based division's and a team division's.
DIVISION_SETTINGS = (
    *(f.name for f in dataclasses.fields(Division) if not f.metadata.get("outside") and f.name not in _BY_VERBS),
    *SCORED_KEYS,
    *TEAM_KEYS,
)
#: What a division's later rounds read afresh, and so may change once one is paired; the rest (the system, the
#: acceleration, round 1's colour, the entry, the spreads of byes and forfeits, the team's match points…) are what
#: its paired rounds were made and scored with.
_FREE_ONCE_PAIRED = frozenset({"name", "team_apart", "repeats", "factor", "prize_bands", "team_tiebreaks",
                               "prize_games"})  # fmt: skip
#: Lists typed as items separated by commas.
_DIVISION_LISTS = frozenset({"session_breaks", "prize_bands", "team_tiebreaks", "match_points"})


def change_division_settings(event: Event, name: str | None, typed: Sequence[tuple[str, str]]) -> list[str]:
    """Give ``event``'s division ``name`` (``None``: the only one) the settings ``typed`` (key and text; the last
    of a key counts), checked as the file would be, each refusal naming the key as typed. What changed."""
    division = event.division(name)
    index = event.divisions.index(division)
    given: dict[str, Any] = {}
    for key, text in typed:
        if key not in DIVISION_SETTINGS:
            event_key = "an [event] setting: give it without -d; " if key in SETTINGS else ""
            raise ConfigError("is not a setting of a division", field=key,
                              hint=event_key + "a division's settings: " + ", ".join(DIVISION_SETTINGS))  # fmt: skip
        given[key] = _division_value(key, text)
    _check_kind(division, given)
    data = eventfile.to_toml(event)
    table = data["division"][index]
    for key, value in given.items():
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    before = division_settings(division, keep_defaults=True)
    try:
        changed = eventfile.from_toml(data).divisions[index]
    except ConfigError as exc:
        _keep_fixed(division, before, given)  # said before what the file's check says of the value
        key = (exc.field or "").removeprefix(f"division[{index + 1}].")
        if key not in given:
            raise
        raise exc.relocated(field=key) from None
    after = division_settings(changed, keep_defaults=True)
    _keep_fixed(division, before, {key: after.get(key) for key in given})
    said = [f"{key} {_shown(after.get(key))} (was {_shown(before.get(key))})" for key in given
            if after.get(key) != before.get(key)]  # fmt: skip
    if not said:
        return [f"nothing to change: the settings of division {division.name!r} are as given"]
    event.divisions[index] = changed
    return [f"changed division {division.name!r}: " + "; ".join(said)]


def _check_kind(division: Division, given: dict[str, Any]) -> None:
    """Refuse a score-based division's setting for a division that is not one (and does not become one with
    ``entry``), and a team division's likewise (``team_size``): the file's check said only that it "needs entry"."""
    for keys, kind, part, making in ((SCORED_KEYS, "score-based", division.scored, "entry"),
                                     (TEAM_KEYS, "team", division.team_settings, "team_size")):  # fmt: skip
        wrong = [key for key in given if key in keys and key != making]
        if wrong and part is None and making not in given:
            raise ConfigError(
                f"is a setting of a {kind} division, and division {division.name!r} is not one", field=wrong[0],
                hint=f"{making}=… makes it one, before its round 1 is paired",
            )


def _keep_fixed(division: Division, before: dict[str, Any], after: dict[str, Any]) -> None:
    """Refuse a change to ``after``'s keys from ``before`` once ``division`` has a paired round, but of those it
    reads afresh (:data:`_FREE_ONCE_PAIRED`)."""
    fixed = [key for key, value in after.items() if key not in _FREE_ONCE_PAIRED and value != before.get(key)]
    if division.paired_rounds and fixed:
        raise ConfigError(
            f"stays {_shown(before.get(fixed[0]))} once a round of division {division.name!r} is paired (round "
            f"{division.paired_rounds} is): its rounds were paired and scored with it", field=fixed[0],
            hint="it can change before the division's round 1 is paired",
        )  # fmt: skip


def _division_value(key: str, text: str) -> Any:
    """A division setting's value as the file holds it, from what was typed: ``None`` (nothing) is the default."""
    text = text.strip()
    if not text:
        return "" if key == "name" else None  # (a name is never the default: the file's check refuses it empty)
    if key in _DIVISION_LISTS:
        return [tomlmap.parse_value(item.strip()) for item in text.split(",") if item.strip()]
    value = tomlmap.parse_value(text)
    return text if key == "name" else value
