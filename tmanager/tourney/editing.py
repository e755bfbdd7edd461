"""Changes to a tourney's settings and participants, checked as when the file is read: `edit`, `substitute`.

A setting is named ``section.field`` (``tourney.cycles``, ``adjudication.max_moves``;
a bare field is ``tourney``'s), a participant's ``participants.NAME.FIELD``
(``participants.SF.options.Hash``). On a tourney with results, :func:`edit_setting`
refuses what would give them another meaning (the schedule's shape, another
engine); :func:`substitute` puts another engine in a participant's place.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tmanager.errors import ConfigError, StateError
from tmanager.formats import pgn
from tmanager.tomlmap import from_table, given_as, to_table
from tmanager.tourney.alphabet import FINISHED_CHARS, PLAYING, UNPLAYED
from tmanager.tourney.model import RESHAPING_KEYS, Tourney
from tmanager.tourney.settings import Openings, Participant

#: The conditions of a participant's slot, which an engine substituted in it keeps.
SLOT_KEYS = ("tc", "st", "nodes", "depth", "ponder", "restart", "time_margin")
#: What edit may change of a participant on a running tourney: how its engine plays, not which engine it is.
PLAY_KEYS = ("options", *SLOT_KEYS, "stderr")
#: How a participant's setting is named: ``participants.NAME.FIELD``.
PARTICIPANTS = "participants."


def edit_setting(tourney: Tourney, key: str, value: Any) -> None:
    """:func:`apply_setting` for a tourney that may have results: refuse what would change their meaning."""
    if key.startswith(PARTICIPANTS):
        set_participant(tourney, *_participant_key(tourney, key), value, playing_only=True)
        return
    section, _, name = key.rpartition(".")
    section = section or "tourney"
    if (section, name) in RESHAPING_KEYS and tourney.results.strip():
        raise ConfigError(
            f"cannot change {name} once games are recorded: the results string would mean other games",
            file=tourney.path,
            field=f"{section}.{name}",
            hint="clone the tourney with the new setting instead (tmanager clone --set)",
        )
    apply_setting(tourney, key, value)


def apply_setting(tourney: Tourney, key: str, value: Any) -> None:
    """Set ``section.field`` (``tourney.cycles``, ``adjudication.max_moves``…; a bare field means
    ``tourney.``; ``participants.NAME.FIELD`` a participant's, see :func:`set_participant`) with the
    same checks as when the file is read."""
    if key.startswith(PARTICIPANTS):
        set_participant(tourney, *_participant_key(tourney, key), value)
        return
    section, _, name = key.rpartition(".")
    section = section or "tourney"
    targets: dict[str, Any] = {
        "tourney": tourney.settings,
        "adjudication": tourney.adjudication,
        "openings": tourney.openings,
        "sprt": tourney.sprt,
        "spsa": tourney.spsa,
    }
    if section not in targets:
        raise ConfigError(
            f"cannot set {key!r}", file=tourney.path, field=key,
            hint="use tourney.FIELD, openings.FIELD, adjudication.FIELD, sprt.FIELD, spsa.FIELD or "
            "participants.NAME.FIELD",
        )
    current = targets[section]
    if current is None and section in ("sprt", "spsa"):
        needs = {"sprt": "elo0 and elo1", "spsa": "parameters and iterations"}[section]
        raise ConfigError(f"the tourney has no [{section}] section", file=tourney.path, field=key,
                          hint=f"add one with {needs} by hand")
    if current is None:  # openings: start a section from the given key
        table = {name: given_as(Openings, name, value)}
        if "file" not in table:
            raise ConfigError("set openings.file first", file=tourney.path, field=key)
        tourney.openings = from_table(Openings, table, section, tourney.path)
        return
    table = to_table(current, keep_defaults=True)
    table[name] = given_as(type(current), name, value)
    updated = from_table(type(current), table, section, tourney.path)
    if section == "tourney":
        tourney.settings = updated
    elif section == "adjudication":
        tourney.adjudication = updated
    elif section == "sprt":
        tourney.sprt = updated
    elif section == "spsa":
        if tourney.tuning is not None:  # the pairs under way play out as they were drawn
            tourney.tuning = tourney.tuning.frozen(current)
        tourney.spsa = updated
    else:
        tourney.openings = updated



def _participant_key(tourney: Tourney, key: str) -> tuple[str, str]:
    """``participants.NAME.FIELD`` as (NAME, FIELD); names may hold dots, so the longest name that fits wins."""
    rest = key.removeprefix(PARTICIPANTS)
    for name in sorted((p.name for p in tourney.participants), key=len, reverse=True):
        if rest.startswith(name + "."):
            return name, rest[len(name) + 1 :]
    names = ", ".join(p.name for p in tourney.participants)
    raise ConfigError(f"{key!r} names no participant", file=tourney.path, field=key, hint=f"participants: {names}")


def set_participant(tourney: Tourney, name: str, key: str, value: Any, *, playing_only: bool = False) -> None:
    """Set ``key`` of participant ``name``: a :class:`Participant` field (``tc``, ``time_margin``…) or
    an engine option, ``options.NAME`` (fastchess's ``option.NAME`` is read the same), checked as when
    the file is read. With ``playing_only``, only :data:`PLAY_KEYS`: another engine is substitute's job."""
    index = tourney.participant_index(name)
    where = f"participants[{index}]"
    field_name, dot, option = key.partition(".")
    field_name = "options" if field_name == "option" else field_name
    fields = [f.name for f in dataclasses.fields(Participant)]
    if playing_only and field_name in fields and field_name not in PLAY_KEYS:
        raise ConfigError(
            f"cannot change {field_name} of participant {name!r} here: that is another engine",
            file=tourney.path,
            field=f"{where}.{field_name}",
            hint=f"use tmanager substitute; edit changes only {', '.join(PLAY_KEYS)}",
        )
    changeable = [f for f in fields if f != "name"]
    if field_name not in changeable or (field_name == "options") != bool(dot and option):
        raise ConfigError(
            f"cannot set {key!r} of participant {name!r}",
            file=tourney.path,
            field=where,
            hint=f"use option.NAME or one of {', '.join(f for f in changeable if f != 'options')}",
        )
    participant = tourney.participants[index]
    table = to_table(participant, keep_defaults=False)
    table[field_name] = ({**participant.options, option: value} if field_name == "options"
                         else given_as(Participant, field_name, value))
    tourney.participants[index] = from_table(Participant, table, where, tourney.path)


def _named_before(tourney: Tourney, name: str) -> bool:
    """Whether ``name`` was a player of this tourney's past: in its PGN (superseded games included), or in its
    faults, whose keys are names."""
    return name in tourney.faults or pgn.tag_value(name) in pgn.players(tourney.pgn_path)


def games_of(tourney: Tourney, index: int, chars: str) -> list[int]:
    """Numbers of the games of participant ``index`` whose results character is in ``chars``."""
    schedule = tourney.schedule()
    found = []
    for match in re.finditer("[" + re.escape(chars) + "]", tourney.results):
        game = schedule.game(match.start())
        if game is not None and index in (game.white, game.black):
            found.append(match.start())
    return found

def substitute(tourney: Tourney, old: str, new: Participant, *, replace: bool) -> list[int]:
    """Put ``new``'s engine in ``old``'s place (same index, so the schedule keeps its meaning), with
    the slot's conditions (:data:`SLOT_KEYS`: time control, ponder, restart, time margin).

    Upgrade (``replace=False``): ``new`` plays the future games under ``old``'s name, so that
    the results, the PGN and every table show one player. Replace: ``old``'s finished games
    are reset to not played, and their numbers returned; ``new`` replays them under its own
    name. Replace is refused while ``old`` is playing.
    """
    index = tourney.participant_index(old)
    slot = tourney.participants[index]
    new = dataclasses.replace(new, **{key: getattr(slot, key) for key in SLOT_KEYS})
    if not replace:
        new = dataclasses.replace(new, name=old)
    if new.name != old and any(p.name == new.name for p in tourney.participants):
        raise ConfigError(f"a participant is already named {new.name!r}", file=tourney.path, hint="choose --name")
    if new.name != old and _named_before(tourney, new.name):
        # The PGN's games (superseded ones too) and the faults would credit it with another engine's record.
        raise ConfigError(f"{new.name!r} named an engine replaced earlier (in the PGN's games or the faults), "
                          "whose record would be taken for the new engine's", file=tourney.path,
                          hint="choose another --name")
    reset: list[int] = []
    if replace:
        playing = games_of(tourney, index, PLAYING)
        if playing:
            raise StateError(
                f"{tourney.path}: {old!r} is playing game(s) {', '.join(map(str, playing))} now; "
                "replace it after they finish, or use --upgrade"
            )
        reset = games_of(tourney, index, FINISHED_CHARS)
        for number in reset:
            tourney.set_result(number, UNPLAYED)
    tourney.participants[index] = new
    return reset
