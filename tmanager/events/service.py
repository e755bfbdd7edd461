"""What the arbiter can do to an event file, one journaled change each: the one API the command line and the web call.

Every function takes the event file and the division's name (``None``: the
only one), does one locked, journaled, atomic change
(:func:`tmanager.events.journal.commit`) and returns a
:class:`~tmanager.events.change.Change`: the messages to show, the division,
the round the change concerns and its journal number.
Players are named as typed (number or unique part of the name). Pages made
from an earlier version pass ``expected_round`` (the last paired round they
showed), so that a stale page never pairs, forces or unpairs the wrong round.
Saving results also runs the event's hooks (:mod:`tmanager.events.hooks`).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tmanager.core.results import ByeKind, Colour, Result
from tmanager.errors import StateError
from tmanager.events import hooks, journal, operations, registration, settings
from tmanager.events.change import Change
from tmanager.events.entries import BoardRef, Entry, ResultEntry, ShownBoard
from tmanager.events.model import Division, Event, LateEntry, Player, label, missing
from tmanager.events.prizefund import FundChange, change_fund
from tmanager.events.rules import ChessRules, PairOptions, TeamRules, parse_system, require, rules_for
from tmanager.events.rules.scored import set_off as scored_set_off
from tmanager.events.scorecards import settings_of
from tmanager.formats.playercsv import Row
from tmanager.formats.ratinglist import Entry as Listed


def _made(path: Path, division: str | None, operation: Callable[[Event, Division], Change]) -> Change:
    """One change of one division: ``operation(event, division)``, which says what it did; numbered by the
    journal."""
    made: list[Change] = []

    def run(e: Event) -> list[str]:
        made.append(operation(e, e.division(division)))
        return list(made[0].messages)

    number = journal.commit(path, run).number
    return dataclasses.replace(made[0], number=number)


def _change(path: Path, division: str | None, operation: Callable[[Event, Division], list[str]]) -> Change:
    """One change of one division that concerns no round in particular: ``operation(event, division)``."""
    return _made(path, division, lambda e, d: Change(messages=tuple(operation(e, d)), division=d.name))


def _still_last(division: Division, expected: int | None, doing: str) -> None:
    """Refuses a change asked for when another round was the last paired one (the page was stale)."""
    if expected is not None and division.paired_rounds != expected:
        now = f"round {division.paired_rounds} is now the last paired round" if division.paired_rounds else (
            "no round is paired now")  # it said "round 0 is now the last paired round"
        raise StateError(now, hint=f"reload the page and check it before {doing}")


def add_player(
    path: Path, division: str | None, player: Player, *, missed: LateEntry | None = None, take_bye: bool = False
) -> Change:
    """Enter ``player``; with ``player.number`` 0, the next free number (in a start-numbered division, the place
    FIDE's order gives); ``take_bye``: a late entry plays the current round's bye holder."""

    def operation(e: Event, d: Division) -> list[str]:
        if not player.number:
            player.number = max((p.number for p in d.players), default=0) + 1
        messages = registration.enter_player(e, d, player, missed=missed, take_bye=take_bye)
        return messages + rules_for(e, d).joined(player)

    return _change(path, division, operation)


def import_players(
    path: Path, division: str | None, rows: Sequence[Row], entries: Mapping[int, Listed] | None, *, source: str
) -> Change:
    """Enter the players of a CSV file completed from a FIDE list (``entries``; None: no list), or the players
    picked from a FIDE list."""
    return _change(path, division, lambda e, d: registration.import_players(e, d, rows, entries, source=source))


def update_ratings(path: Path, division: str | None, entries: Mapping[int, Listed], *, source: str) -> Change:
    """Ratings and titles from a FIDE list (before a round)."""
    return _change(path, division, lambda e, d: registration.update_ratings(e, d, entries, source=source))


def start_numbers(path: Path, division: str | None) -> Change:
    """Number the players in FIDE's initial order; the numbers become the pairing order and TRF starting ranks."""

    def operation(e: Event, d: Division) -> list[str]:
        require(rules_for(e, d), ChessRules, f"division {d.name!r} is score-based: start numbers are for chess",
                hint="name a chess division with -d DIVISION; a score-based division keeps its numbers")  # fmt: skip
        return registration.assign_start_numbers(d)

    return _change(path, division, operation)


def edit_player(path: Path, division: str | None, who: str, changes: Mapping[str, Any]) -> Change:
    return _change(path, division, lambda e, d: operations.edit_player(d, operations.find_player(d, who), changes))


def _whole_matches(e: Event, d: Division, rounds: Sequence[int]) -> list[int]:
    """``rounds`` with the other rounds of their matches (a Double-Swiss match is two rounds); a round beyond the
    event's is refused as the typing slip it is (the file's check would refuse it too, without naming --rounds)."""
    total = e.total_rounds(d)
    beyond = [n for n in rounds if total and n > total]
    if beyond:
        raise StateError(f"the event has {total} rounds; there is no round {beyond[0]}", field="--rounds",
                         hint=f"name rounds from 1 to {total}")
    rules = rules_for(e, d)
    return sorted({r for n in rounds for r in rules.match_rounds(n)})


def withdraw(path: Path, division: str | None, who: str, rounds: Sequence[int] = ()) -> Change:
    return _change(
        path, division,
        lambda e, d: operations.withdraw(d, operations.find_player(d, who), _whole_matches(e, d, rounds)),
    )  # fmt: skip


def reinstate(path: Path, division: str | None, who: str, rounds: Sequence[int] = ()) -> Change:
    return _change(
        path, division,
        lambda e, d: operations.reinstate(d, operations.find_player(d, who), _whole_matches(e, d, rounds)),
    )  # fmt: skip


def set_off(path: Path, division: str | None, who: str, spread: int | None, rounds: Sequence[int] = ()) -> Change:
    """tsh's ``off`` in a score-based division."""

    def operation(e: Event, d: Division) -> list[str]:
        settings_of(d)  # refused for a chess division, saying how to mend it
        return scored_set_off(d, operations.find_player(d, who), spread, rounds)

    return _change(path, division, operation)


def _team_rules(e: Event, d: Division) -> TeamRules:
    refusal = f"division {d.name!r} is not a team division (its file sets no team_size)"
    return require(rules_for(e, d), TeamRules, refusal, hint="name a team division with -d DIVISION")


def add_team(
    path: Path, division: str | None, name: str, *, number: int = 0, short: str = "", players: Sequence[str] = ()
) -> Change:
    """A new team of a team division, with its roster (players by number or name) in board order."""
    return _change(path, division, lambda e, d: _team_rules(e, d).add_team(name, number=number, short=short,
                                                                            players=players))  # fmt: skip


def roster(path: Path, division: str | None, team: str, players: Sequence[str]) -> Change:
    """A team's roster in board order (team and players by number or name)."""
    return _change(path, division, lambda e, d: _team_rules(e, d).roster(team, players))


def lineup(path: Path, division: str | None, team: str, players: Sequence[str], round_number: int | None) -> Change:
    """A team's lineup for a round: players of its roster in roster order, ``-`` for a board left empty."""
    return _change(path, division, lambda e, d: _team_rules(e, d).lineup(team, players, round_number))


def request_bye(path: Path, division: str | None, who: str, round_number: int | None, kind: ByeKind) -> Change:
    """A requested bye of ``kind`` in ``round_number`` (default: the next round)."""

    def operation(e: Event, d: Division) -> Change:
        n = d.paired_rounds + 1 if round_number is None else round_number
        said = rules_for(e, d).request_bye(operations.find_player(d, who), n, kind)
        return Change(messages=tuple(said), division=d.name, round=n)

    return _made(path, division, operation)


def cancel_bye(
    path: Path, division: str | None, who: str, round_number: int | None, *, shown: ByeKind | None = None
) -> Change:
    """Take back a requested bye of ``round_number`` (default: the next round). ``shown``: the bye's kind as the
    page that sent this showed it; another kind now (cancelled and asked for again since) is refused."""

    def operation(e: Event, d: Division) -> Change:
        n = d.paired_rounds + 1 if round_number is None else round_number
        player = operations.find_player(d, who)
        record = d.find_round(n)
        now = record.byes.get(player.number) if record is not None else None
        if shown is not None and now is not None and now != shown:
            raise StateError(f"{label(player)}'s bye in round {n} is now {now}-point, not {shown}-point as the page "
                             "showed", hint="reload the page and check it")  # fmt: skip
        said = rules_for(e, d).cancel_bye(player, n)
        return Change(messages=tuple(said), division=d.name, round=n)

    return _made(path, division, operation)


def forbid(path: Path, division: str | None, players: Sequence[str], *, teams: bool | None = None) -> Change:
    """Players who must never meet; ``teams`` keeps (or lets) the players of one team apart."""

    def operation(e: Event, d: Division) -> list[str]:
        messages = []
        if teams is not None:
            d.team_apart = teams
            messages.append(f"players of one team {'never' if teams else 'may'} meet")
        if players or teams is None:
            messages += operations.forbid(d, [operations.find_player(d, x) for x in players])
        return messages

    return _change(path, division, operation)


def unforbid(path: Path, division: str | None, first: str, second: str) -> Change:
    """Take a pair out of the forbidden pairs (a mistaken `forbid`, without undoing what came after it)."""
    return _change(
        path,
        division,
        lambda e, d: operations.unforbid(d, operations.find_player(d, first), operations.find_player(d, second)),
    )


def force(path: Path, division: str | None, white: str, black: str, *, expected_round: int | None = None) -> Change:
    """A game (``black`` ``bye``: the pairing-allocated bye) of the next round, set before pairing."""

    def operation(e: Event, d: Division) -> Change:
        _still_last(d, expected_round, "forcing a game")
        said = rules_for(e, d).force(white, black)
        return Change(messages=tuple(said), division=d.name, round=d.paired_rounds + 1)

    return _made(path, division, operation)


def unforce(path: Path, division: str | None, white: str, black: str, *, expected_round: int | None = None) -> Change:
    """Take back a game (``black`` ``bye``: the bye) of the next round set with :func:`force`."""

    def operation(e: Event, d: Division) -> Change:
        _still_last(d, expected_round, "taking back a forced game")
        said = rules_for(e, d).unforce(white, black)
        return Change(messages=tuple(said), division=d.name, round=d.paired_rounds + 1)

    return _made(path, division, operation)


def pair(
    path: Path,
    division: str | None,
    *,
    colour: Colour | None = None,
    system: str | None = None,
    repeats: int | None = None,
    seed: int | None = None,
    expected_round: int | None = None,
    explain: bool = False,
) -> Change:
    """Pair the next round by the division's rules (``seed`` repeats the lots of a run); with ``explain``, why
    each pair and colour was chosen (the systems that can say)."""
    options = PairOptions(
        colour=colour,
        system=parse_system(system) if system is not None else None,
        repeats=repeats,
        rng=random.Random(seed) if seed is not None else None,
        explain=explain,
    )

    def operation(e: Event, d: Division) -> Change:
        _still_last(d, expected_round, "pairing")
        rules = rules_for(e, d)
        if explain and not rules.explains:
            raise StateError(f"--explain: the pairings of {str(d.system)!r} are not explained")
        first = d.paired_rounds + 1
        return Change(messages=tuple(rules.pair(options)), division=d.name, round=first)

    return _made(path, division, operation)


def unpair(path: Path, division: str | None, *, expected_round: int | None = None) -> Change:
    """Take back the last paired round (a Double-Swiss: its match); the change concerns the first round taken
    back."""

    def operation(e: Event, d: Division) -> Change:
        _still_last(d, expected_round, "unpairing")
        said = rules_for(e, d).unpair()
        return Change(messages=tuple(said), division=d.name, round=d.paired_rounds + 1)

    return _made(path, division, operation)


def save_result(
    path: Path,
    division: str | None,
    entry: Entry,
    round_number: int | None,
    *,
    correction: bool,
    confirm: bool = False,
    shown: ShownBoard | None = None,
) -> Change:
    """Enter one result (a result line read by the division's rules, :meth:`DivisionRules.parse_entry`, or a form
    read by its :class:`EntryForm`) as one change, then run the event's hooks. ``shown``: the board as the page
    that sent the entry showed it; if it has changed since, the entry is refused."""

    def operation(e: Event, d: Division) -> Change:
        rules = rules_for(e, d)
        n = rules.entry_round(entry, round_number, correction=correction)
        if shown is not None and isinstance(entry.where, BoardRef):
            operations.refuse_changed(d, n, entry.where, shown)
        before = sum(1 for r, _ in missing(d) if r == n)
        said = rules.enter(entry, round_number, correction=correction, confirm=confirm)
        completed = before > 0 and not any(r == n for r, _ in missing(d))
        return Change(messages=tuple(said), division=d.name, round=n, completed=completed)

    change = _made(path, division, operation)
    assert change.division is not None and change.round is not None  # set by the operation above
    if change.number == 0:
        # The board held this already ("no result" saved on a board without one, a result given again): nothing was
        # written, so no hook runs, and the echo alone read as a result saved.
        held = "no result" if isinstance(entry, ResultEntry) and entry.result is Result.PENDING else "this result"
        said = f"nothing changed: the board already has {held} ({change.messages[0]})"
        return dataclasses.replace(change, messages=(said,))
    ran = hooks.after_results(path, change.division, change.round, completed=change.completed)
    return dataclasses.replace(change, messages=change.messages + tuple(ran))


def prize_fund(path: Path, division: str | None, change: FundChange) -> Change:
    """Set a list of the division's prize fund, take one out, or change how the fund is shared."""
    return _change(path, division, lambda e, d: change_fund(e, d, change))


def change_settings(path: Path, typed: Sequence[tuple[str, str]], *, division: str | None = None) -> Change:
    """The settings ``typed`` (key and text as typed): ``[event]``'s, or ``division``'s (``None``: the keys that
    are not ``[event]``'s, the only division's); the ones the paired rounds were made with refused once a round is
    paired (:mod:`tmanager.events.settings`)."""
    def change(event: Event) -> list[str]:
        return settings.change_settings(event, typed, division=division, directory=path.parent)

    committed = journal.commit(path, change)
    return Change(messages=committed.said, number=committed.number)


def undo(path: Path, *, expected: int | None = None) -> Change:
    """Step back to the version before the last change (only that change, with ``expected``)."""
    undone = journal.undo(path, expected=expected)
    return Change(messages=undone.said, number=undone.number)
