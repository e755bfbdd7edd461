"""The ``[event]`` settings changed after ``event new`` (``tmanager event set``), as typed: ``KEY=VALUE`` words.

Most settings are read only where they are shown or used, and so may change at any time: the event's name,
place, dates, arbiters, schedule and time control (reports, pages, TRF headers), the tie-breaks, categories
and prize places (computed afresh for every report), ``late_entry`` (read when a late entry is made),
``max_byes`` (when a bye is asked for) and ``stylesheet``. Two were what the paired rounds were made with,
and stay once a round is paired (:data:`FIXED_ONCE_PAIRED`). ``[scoring]``, ``[hooks]`` and the divisions'
settings are not ``[event]``'s.
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
from tmanager.events.eventfile import check
from tmanager.events.model import Event
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


def change_settings(event: Event, typed: Sequence[tuple[str, str]], *, directory: Path) -> list[str]:
    """Give ``event``, whose file is in ``directory``, the settings ``typed`` (key and text, in order; a list's key
    repeated adds to it); each refusal names the key as typed. What changed, one message."""
    table = tomlmap.to_table(event, keep_defaults=True)
    given: dict[str, list[str]] = {}
    for key, text in typed:
        if key not in SETTINGS:
            raise ConfigError("is not a setting of [event]", field=key, hint="the settings: " + ", ".join(SETTINGS))
        given.setdefault(key, []).append(text)
    paired = max((d.paired_rounds for d in event.divisions), default=0)
    for key, texts in given.items():
        value = _value(key, texts)
        if paired and key in FIXED_ONCE_PAIRED and value != table.get(key):  # (before the file's check of it)
            raise ConfigError(f"stays {_shown(getattr(event, key))} once a round is paired (round {paired} is): "
                              f"{FIXED_ONCE_PAIRED[key]}", field=key, hint="it can change before round 1 is paired")
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
    if key == "name" and not text:
        raise ConfigError("is empty", field=key, hint='an event needs a name, e.g. name="Spring Open"')
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
        raise ConfigError(exc.message, field=key, hint=exc.hint) from None
    return changed


def _shown(value: object) -> str:
    """A setting's value in a message: a word of a choice as it is typed, a list as its items, nothing as none."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, list):
        value = "; ".join(map(str, value))
    return repr(value) if value not in ("", None) else "none"
