"""Changes to an SPRT test under way: refused once a game is recorded, or, forced, recorded in the file.

An SPRT weighs every game of a test as evidence about one question, asked under
one set of conditions. Once a game of a tourney with ``[sprt]`` is recorded, a
change of the question (the ``[sprt]`` bounds, error rates or model) or of the
conditions (a participant's or the tourney's limits, ``tc``, ``st``, ``nodes``,
``depth``, ``time_margin``; the ``[openings]`` book and how it is walked; which engine a participant is,
which ``substitute --upgrade`` changes under its name) would
mix games of two tests into one verdict. ``tmanager edit`` refuses it unless
forced; a forced change is made and kept as an :class:`Amendment` in the file's
owned part (``[amendments.N]``, see :mod:`tmanager.tourney.store`), with the time
and the number of games recorded then, and ``tmanager status`` lists them.

The file's ``[progress]`` keeps the conditions as its games were played under them
(``conditions``, :func:`fingerprint`), so that the same change made by hand in the
settings is refused too (:func:`check_hand_edit`) rather than taken in silence.

Plain data and comparisons: no engines, no files.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tmanager.errors import ConfigError, ascii_digits
from tmanager.tomlmap import from_table, to_table

if TYPE_CHECKING:
    from tmanager.tourney.model import Tourney

#: What an SPRT test's question is made of.
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model", "pentanomial")
#: A participant's or the tourney's limits.
LIMIT_KEYS = ("tc", "st", "nodes", "depth", "time_margin")
#: The book and how it is walked.
BOOK_KEYS = ("file", "format", "order", "seed", "start", "plies")
#: Which engine a participant is (``substitute --upgrade`` changes it under the same name).
ENGINE_KEYS = ("engine", "cmd", "protocol", "dir", "args")


@dataclass(frozen=True, slots=True)
class Amendment:
    """One forced change of a test under way: when, after how many recorded games, which key, from what to
    what (values as text; "" when unset)."""

    time: str
    games: int
    key: str
    old: str = ""
    new: str = ""

    def describe(self) -> str:
        """``after 12 games (2026-11-28T11:15:38+00:00): sprt.elo1 5.0 -> 10.0``."""
        return f"after {self.games} games ({self.time}): {self.key} {self.old or '(unset)'} -> {self.new or '(unset)'}"


def conditions(tourney: Tourney) -> dict[str, Any]:
    """The values a test under way must keep, by key as ``edit --set`` names them."""
    values: dict[str, Any] = {}
    if tourney.sprt is not None:
        values.update({f"sprt.{key}": getattr(tourney.sprt, key) for key in SPRT_KEYS})
    values.update({f"tourney.{key}": getattr(tourney.settings, key) for key in LIMIT_KEYS})
    for p in tourney.participants:
        values.update({f"participants.{p.name}.{key}": getattr(p, key) for key in (*LIMIT_KEYS, *ENGINE_KEYS)})
    book = tourney.openings
    values.update({f"openings.{key}": getattr(book, key) if book else None for key in BOOK_KEYS})
    return values


def fingerprint(tourney: Tourney) -> dict[str, str]:
    """:func:`conditions` as text, the unset ones left out: what ``[progress]`` keeps of an SPRT test's."""
    return {key: text for key, value in conditions(tourney).items() if (text := _text(value))}


def check_hand_edit(tourney: Tourney, recorded: Mapping[str, str] | None, path: Path) -> None:
    """Refuse (:class:`ConfigError`) conditions of an SPRT test with recorded games that differ from those
    ``[progress]`` ``recorded`` with them: changed by hand, where ``edit`` would have asked for ``--force``. A
    file of an older tmanager, which recorded none, is taken as it is. A test removed is refused too: ``edit``
    cannot remove one, and its verdict would be dropped in silence."""
    games = tourney.finished_count
    if recorded is None or not games:
        return
    if tourney.sprt is None:
        question = [f"{key[5:]} = {text}" for key, text in recorded.items() if key.startswith("sprt.")]
        if question:
            raise ConfigError(
                f"the SPRT test's {games} games were played with [sprt] {', '.join(question)}: without it its "
                "verdict would be dropped", file=path, field="sprt",
                hint="put it back; for a tourney without the test, start one with tmanager clone and "
                "remove [sprt] from the new file",
            )
        return
    now = fingerprint(tourney)
    key = next((key for key in conditions(tourney) if recorded.get(key, "") != now.get(key, "")), None)
    if key is None:
        return
    participant, _, field = key.removeprefix("participants.").rpartition(".")
    command = f"substitute {path} {participant} NEW --upgrade" if field in ENGINE_KEYS else f"edit {path} --set {key}=…"
    raise ConfigError(
        f"the SPRT test's {games} games were played with {key} = {recorded.get(key) or '(unset)'}, not "
        f"{now.get(key) or '(unset)'}: its verdict would mix two tests",
        file=path, field=key,
        hint=f"put it back; to change it all the same, then use tmanager {command} --force, which records it in "
        "the file, or start a new test with tmanager clone --set",
    )


def guard(tourney: Tourney, before: Mapping[str, Any], *, force: bool) -> list[Amendment]:
    """Refuse (:class:`ConfigError`) the changes of :func:`conditions` since ``before`` in a tourney with
    ``[sprt]`` and recorded games; with ``force``, record them in ``tourney.amendments`` and return them."""
    games = tourney.finished_count
    if tourney.sprt is None or not games:
        return []
    after = conditions(tourney)
    changed = [key for key in after if before.get(key) != after[key]]
    if not changed:
        return []
    if not force:
        more = f" (nor {len(changed) - 1} more)" if len(changed) > 1 else ""
        key = changed[0]
        raise ConfigError(
            f"cannot change it from {_text(before.get(key)) or '(unset)'} to {_text(after[key]) or '(unset)'}{more} "
            f"with {games} games of the SPRT test recorded: its verdict would mix two tests",
            file=tourney.path, field=key,
            hint="start a new test with tmanager clone --set, or give --force to change it all the same, "
            "recorded in the file",
        )
    now = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    made = [Amendment(now, games, key, _text(before.get(key)), _text(after[key])) for key in changed]
    tourney.amendments = (*tourney.amendments, *made)
    return made


def _text(value: Any) -> str:
    if isinstance(value, tuple):  # a participant's args
        return " ".join(map(str, value))
    return "" if value is None else str(value)


def to_toml(amendments: Sequence[Amendment]) -> dict[str, dict[str, Any]]:
    """``[amendments.N]`` tables, numbered from 1: tables, which TOML writers never inline as they may an
    array of small tables (the owned part's sections are found by their headers)."""
    return {str(n): to_table(a, keep_defaults=True) for n, a in enumerate(amendments, 1)}


def from_toml(table: Any, path: Path) -> tuple[Amendment, ...]:
    """The ``[amendments]`` section as read, in their order."""
    if not isinstance(table, dict) or not all(ascii_digits(key) for key in table):
        raise ConfigError("must be tables numbered from 1 ([amendments.1] …)", file=path, field="amendments")
    return tuple(
        from_table(Amendment, table[key], f"amendments.{key}", path) for key in sorted(table, key=int)
    )
