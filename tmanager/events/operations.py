"""Changes to an event in memory, the same for every kind of division: players, byes, forced games, unpairing.

Each operation changes the model and returns the messages to show; nothing
here touches a file (:mod:`tmanager.events.journal` makes each call one
locked, journaled change). Players are found by number or by a unique part of
their name. Pairing and result entry depend on the kind of division and are
its rules' (:mod:`tmanager.events.rules`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from tmanager.core.results import REQUESTED_BYES, ByeKind, Colour
from tmanager.errors import StateError, ascii_digits
from tmanager.events.checks import check_player
from tmanager.events.entries import BoardRef, ShownBoard
from tmanager.events.games import games_of
from tmanager.events.messages import Note, Topic
from tmanager.events.model import Board, Division, Event, LateEntry, Player, PlayerStatus, Round, label

#: Fields ``edit_player`` may not change: the number is permanent, the status is withdraw's and return's.
_FIXED = frozenset({"number", "status", "absent"})


def find_player(division: Division, text: str) -> Player:
    """A player by number or by name (case-insensitive): the whole name, else the whole surname (``Kuiper`` is
    Kuiper, Jan even beside Kuipers, Piet), else a part of the name that only one player's has."""
    text = text.strip()
    if ascii_digits(text):
        return division.player(int(text))
    needle = text.casefold()
    matches = [p for p in division.players if needle in p.name.casefold()]
    for same in (
        [p for p in matches if p.name.casefold() == needle],
        [p for p in matches if p.name.partition(",")[0].strip().casefold() == needle],
        matches,
    ):
        if len(same) == 1:
            return same[0]
    if not matches:
        raise StateError(f"no player matches {_typed(text)} in division {division.name!r}", topic=Topic.NO_PLAYER,
                         field="player", hint="a number, or a part of the name")
    some = ", ".join(label(p) for p in matches[:5]) + (", …" if len(matches) > 5 else "")  # the first 5, and more
    raise StateError(
        f"{_typed(text)} matches {len(matches)} players: {some}",
        topic=Topic.AMBIGUOUS_NAME,
        field="player",
        hint="type more of the name, or the number",
    )


def _typed(text: str) -> str:
    """What was typed, quoted, cut short when long (a page's field may hold 16 KiB): a message stays readable."""
    return repr(text) if len(text) <= 40 else f"{text[:40]!r}… ({len(text)} characters)"


def _check_entry(division: Division, player: Player) -> None:
    """A player's data as the event file's check takes it (printable names, FIDE's fields as
    :mod:`tmanager.core.playerfields` has them), and a FIDE ID nobody else has: entered and edited alike, each
    refusal naming the field by its key alone (``birth``), which the command line names as its option."""
    check_player(player)
    twin = next((p for p in division.players if p.fide_id == player.fide_id and p is not player), None)
    if player.fide_id is not None and twin is not None:
        raise StateError(f"{player.fide_id} is already entered, for {label(twin)}", field="fide_id",
                         hint="a player is entered once: check the FIDE ID")


def _check_name(division: Division, name: str, number: int | None = None) -> None:
    if not name.strip():
        raise StateError("a player needs a name", hint='give it as "Last, First"')
    for p in division.players:
        if p.number != number and p.name.casefold() == name.strip().casefold():
            raise StateError(
                f"{label(p)} already has the name {name!r}",
                topic=Topic.NAME_TAKEN,
                hint="add a distinguishing initial or city",
            )


def span(rounds: Sequence[int]) -> str:
    """`` 3``, ``s 3-5`` or ``s [2, 5]``: rounds as a message names them after the word round."""
    if len(rounds) == 1:
        return f" {rounds[0]}"
    return f"s {rounds[0]}-{rounds[-1]}" if rounds[-1] - rounds[0] == len(rounds) - 1 else f"s {list(rounds)}"


# -- players -----------------------------------------------------------------------------------


def add_player(
    event: Event, division: Division, player: Player, *, missed: LateEntry | None = None, take_bye: bool = False
) -> list[str]:
    """Enter a player; after round 1 a late entry; none once the last planned round is paired. The messages
    say how missed rounds count (:func:`tmanager.events.registration.enter_player` adds where the player stands).

    Rounds already paired are recorded as byes of kind ``missed`` (the event's
    ``late_entry``: zero- or half-point). The holder of the current round's
    pairing-allocated bye keeps it, as FIDE practice has it; with ``take_bye``
    (Chaos's habit), while the round has no result, the newcomer plays that
    player instead.
    """
    _check_name(division, player.name)
    _check_entry(division, player)
    if any(p.number == player.number for p in division.players):
        raise StateError(f"number {player.number} is taken by {label(division.player(player.number))}")
    if player.number < 1:
        raise StateError("player numbers start at 1", hint="give a number from 1, or none for the next free one")
    paired = division.paired_rounds
    if paired and division.round_robin:
        raise StateError("a round robin cannot take a player once round 1 is paired",
                         hint="unpair round 1 first, before any result is in")
    total = event.total_rounds(division)
    if total and paired >= total:
        raise StateError(f"round {paired} of {total} is paired: no player can enter any more")
    kind = missed or event.late_entry
    if take_bye:  # asked for and not possible: say so, rather than enter the player with byes of missed rounds
        _refuse_take_bye(division)
    player.name = player.name.strip()
    division.players.append(player)
    messages: list[str] = []
    if paired:
        current = division.round(paired)
        bye_holder = next((n for n, k in current.byes.items() if k == ByeKind.PAIRING), None)
        missed_rounds = list(range(1, paired + 1))
        if bye_holder is not None and take_bye:
            missed_rounds.pop()
            del current.byes[bye_holder]
            holder = division.player(bye_holder)
            last = next((g.colour for g in reversed(games_of(division, bye_holder, paired - 1)) if g.played), None)
            white, black = (player.number, bye_holder) if last == Colour.WHITE else (bye_holder, player.number)
            current.boards.append(Board(white, black))
            messages.append(
                Note(
                    f"plays round {paired} against {label(holder)}, who loses the pairing-allocated bye",
                    Topic.TAKES_BYE_BOARD,
                )
            )
        for n in missed_rounds:
            division.round(n).byes[player.number] = kind.bye
        player.missed = max(missed_rounds, default=0)
        if missed_rounds:
            plural = "s" * (len(missed_rounds) > 1)
            messages.insert(
                0, Note(f"late entry: round{span(missed_rounds)} scored as {kind}-point bye{plural}", Topic.LATE_ENTRY)
            )
    return messages


def _refuse_take_bye(division: Division) -> None:
    """``take_bye`` needs a current round whose pairing-allocated bye has not been played yet."""
    paired = division.paired_rounds
    if not paired:
        raise StateError("no round is paired yet, so there is no bye to take", field="--take-bye", hint="leave it out")
    current = division.round(paired)
    if not any(k == ByeKind.PAIRING for k in current.byes.values()):
        raise StateError(f"round {paired} has no pairing-allocated bye to take", field="--take-bye",
                         hint="leave it out")
    if not all(b.result.pending for b in current.boards):
        raise StateError(f"round {paired} has results already, so its bye holder keeps the bye", field="--take-bye",
                         hint="leave it out")


def edit_player(division: Division, player: Player, changes: Mapping[str, Any]) -> list[str]:
    """Change a player's data (not the number). Rating changes move the pairing rank."""
    changes = dict(changes)
    if "name" in changes:
        _check_name(division, changes["name"], player.number)
        changes["name"] = changes["name"].strip()
    editable = {f.name for f in dataclasses.fields(Player)} - _FIXED
    for key in changes:
        if key not in editable:
            raise StateError(f"edit-player cannot change {key!r}")
    # A field given the value it has is no change: said so, as event set does, and not called 'changed'.
    same = sorted(key for key, value in changes.items() if getattr(player, key) == value)
    changed = sorted(key for key in changes if key not in same)
    for key in changed:
        setattr(player, key, changes[key])
    _check_entry(division, player)
    kept = f"already has the {', '.join(same)} given" if same else ""
    if not changed:
        return [f"nothing to change: {label(player)} {kept}" if same else "nothing to change"]
    return [f"changed {', '.join(changed)} of {label(player)}" + (f" ({kept})" if same else "")]


def withdraw(division: Division, player: Player, rounds: Sequence[int] = ()) -> list[str]:
    """Withdraw a player from the given future rounds, or for good (no rounds)."""
    nxt = division.paired_rounds + 1
    for n in rounds:
        if n < nxt:
            raise StateError(f"round {n} is already paired", topic=Topic.ALREADY_PAIRED, field="round",
                             hint=f"enter a forfeit for {label(player)} instead")
    for n in rounds or [nxt]:
        record = division.find_round(n)
        if record and (player.number in record.byes or any(player.number in f for f in record.forced)):
            raise StateError(f"{label(player)} has a bye or a forced game in round {n}", field="round",
                             hint="remove it first: bye --cancel, force --cancel")
    if rounds:
        player.absent = sorted(set(player.absent) | set(rounds))
        return [f"{label(player)} will not be paired in round{span(sorted(set(rounds)))}"]
    if player.status == PlayerStatus.WITHDRAWN:
        raise StateError(f"{label(player)} is already withdrawn", field="player")
    player.status = PlayerStatus.WITHDRAWN
    messages = [f"{label(player)} withdrawn from round {nxt} on"]
    for record in division.rounds:
        if not record.paired and player.number in record.byes:
            del record.byes[player.number]
            messages.append(f"their requested bye in round {record.number} is cancelled")
    division.drop_empty_rounds()
    current = division.find_round(nxt - 1)
    board = current.seat(player.number) if current else None
    if board and board.result.pending:
        messages.append(f"round {nxt - 1} is still paired for them: enter the game's result or a forfeit")
    return messages


def reinstate(division: Division, player: Player, rounds: Sequence[int] = ()) -> list[str]:
    """Undo a withdrawal: for the given rounds (future ones the player was withdrawn from: another was said to be
    undone, and nothing changed), or altogether."""
    if rounds:
        played = [n for n in rounds if n <= division.paired_rounds]
        if played:
            raise StateError(f"round {played[0]} is already paired", topic=Topic.ALREADY_PAIRED, field="--rounds",
                             hint=f"{label(player)} can return from round {division.paired_rounds + 1} on")
        kept = [n for n in rounds if n not in player.absent]
        if kept:
            upcoming = [n for n in player.absent if n > division.paired_rounds]
            hint = (f"they are withdrawn from round{span(upcoming)}" if upcoming else
                    "they are withdrawn for good: return without --rounds" if player.status == PlayerStatus.WITHDRAWN
                    else "they are withdrawn from no round")  # fmt: skip
            raise StateError(f"{label(player)} is not withdrawn from round {kept[0]}", field="--rounds", hint=hint)
        player.absent = [n for n in player.absent if n not in rounds]
        return [f"{label(player)} will be paired again in round{span(sorted(set(rounds)))}"]
    if player.status == PlayerStatus.ACTIVE and not player.absent:
        raise StateError(f"{label(player)} is not withdrawn", field="player")
    player.status = PlayerStatus.ACTIVE
    player.absent = [n for n in player.absent if n <= division.paired_rounds]
    return [f"{label(player)} returns from round {division.paired_rounds + 1}"]


# -- byes, forbidden pairs and forced games ------------------------------------------------------

def request_bye(event: Event, division: Division, player: Player, round_number: int, kind: ByeKind) -> list[str]:
    """A requested bye (half-, zero- or full-point: :data:`~tmanager.core.results.REQUESTED_BYES`) for a round
    not yet paired."""
    if kind not in REQUESTED_BYES:
        raise StateError(f"a requested bye is 'half', 'zero' or 'full', not {kind.value!r}")
    _check_future(event, division, round_number)
    if division.round_robin:
        raise StateError("round-robin games are fixed by the Berger tables, with no bye",
                         hint="enter the game as a forfeit instead")
    record = division.round(round_number, create=True)
    _check_free(division, record, player)
    if event.max_byes is not None:  # (a late entry's byes of the rounds before it entered were not requested)
        taken = sum(
            1 for r in division.rounds if r.number > player.missed
            for n, k in r.byes.items() if n == player.number and k != ByeKind.PAIRING
        )  # fmt: skip
        if taken >= event.max_byes:
            had = f"{taken} requested bye{'s' * (taken != 1)}"
            raise StateError(f"{label(player)} has had {had}; the event allows {event.max_byes} (max_byes)",
                             hint="raise the limit with set max_byes=N")
    record.byes[player.number] = kind
    return [f"{label(player)}: {kind}-point bye in round {round_number}"]


def cancel_bye(event: Event, division: Division, player: Player, round_number: int) -> list[str]:
    """Take back a requested bye of a round not yet paired (the player will play, or asked for another kind)."""
    _check_future(event, division, round_number)
    record = division.find_round(round_number)
    kind = record.byes.get(player.number) if record else None
    if record is None or kind is None or record.forced_bye == player.number:
        raise StateError(f"{label(player)} has no requested bye in round {round_number}", field="player")
    del record.byes[player.number]
    division.drop_empty_rounds()
    return [f"{label(player)}: {kind}-point bye in round {round_number} cancelled"]


def _check_future(event: Event, division: Division, round_number: int) -> None:
    if round_number < 1:
        raise StateError(
            f"rounds start at 1; there is no round {round_number}", field="round", hint="name rounds from 1"
        )
    if round_number <= division.paired_rounds:
        raise StateError(f"round {round_number} is already paired", topic=Topic.ALREADY_PAIRED, field="round",
                         hint="unpair it first")
    total = event.total_rounds(division)
    if total and round_number > total:
        raise StateError(f"the event has {total} rounds; there is no round {round_number}", field="round",
                         hint=f"name rounds from 1 to {total}")


def _check_free(division: Division, record: Round, player: Player) -> None:
    """The player has nothing yet in this round and is available."""
    if not player.plays(record.number):
        raise StateError(f"{label(player)} is withdrawn from round {record.number}",
                         hint=f"return them for round {record.number} first")
    # The forced bye first: it is among the round's byes too, and was said to be "a pairing-point bye" that "bye
    # --cancel takes back", which refuses it (it is no requested bye).
    if record.forced_bye == player.number:
        raise StateError(
            f"{label(player)} already has the forced bye in round {record.number}", topic=Topic.ROUND_TAKEN,
            hint=f"take it back first: force {player.number} bye --cancel",
        )
    if player.number in record.byes:
        raise StateError(
            f"{label(player)} already has a {record.byes[player.number]}-point bye in round {record.number}",
            topic=Topic.ROUND_TAKEN,
            hint="bye --cancel takes it back",
        )
    board = record.seat(player.number)
    if board:
        raise StateError(
            f"{label(player)} already has a game in round {record.number} (board {board.white}-{board.black})",
            topic=Topic.ROUND_TAKEN,
        )


def forbid(division: Division, players: Sequence[Player]) -> list[str]:
    """Players who must never be paired against each other."""
    numbers = sorted({p.number for p in players})
    if len(numbers) < 2:
        raise StateError("forbid needs at least two different players", field="player",
                         hint="name each player of the group once")
    if numbers not in division.forbidden:
        division.forbidden.append(numbers)
    return [f"will not pair {', '.join(label(p) for p in players)} against each other"]


def unforbid(division: Division, first: Player, second: Player) -> list[str]:
    """Let two players meet again: the pair leaves every forbidden group that holds both (a larger group keeps
    its other pairs, split in two)."""
    pair = {first.number, second.number}
    if len(pair) < 2:
        raise StateError("unforbid needs two different players", field="player", hint="name each of the two once")
    if not any(pair <= set(group) for group in division.forbidden):
        teams = " (they share a team: `forbid --teams off` lets team mates meet)" if division.team_apart and (
            first.team and first.team.casefold() == second.team.casefold()
        ) else ""
        raise StateError(f"{label(first)} and {label(second)} are not a forbidden pair{teams}")
    groups: list[list[int]] = []
    for group in division.forbidden:
        if not pair <= set(group):
            groups.append(group)
            continue
        for without in sorted(pair):
            rest = [n for n in group if n != without]
            if len(rest) > 1 and rest not in groups:
                groups.append(rest)
    division.forbidden = groups
    return [f"{label(first)} and {label(second)} may be paired against each other again"]


def force(event: Event, division: Division, white: Player, black: Player | None) -> list[str]:
    """Set a game (``white`` has white) or, with ``black`` None, the pairing-allocated bye of the next round."""
    if division.round_robin:
        raise StateError("round-robin games are fixed by the Berger tables",
                         hint="force applies to Swiss and manual divisions")
    n = division.paired_rounds + 1
    _check_future(event, division, n)
    record = division.round(n, create=True)
    _check_free(division, record, white)
    if black is None:
        if record.forced_bye is not None:
            holder = label(division.player(record.forced_bye))
            raise StateError(f"round {n} already has a forced bye, for {holder}",
                             hint=f"take it back first: force {record.forced_bye} bye --cancel")
        earlier = [
            r.number for r in division.rounds
            if r.number < n and r.byes.get(white.number) in (ByeKind.PAIRING, ByeKind.FULL)
        ]
        if earlier:
            raise StateError(
                f"{label(white)} already had a full-point bye in round {earlier[0]}; no second one",
                topic=Topic.SECOND_BYE,
            )
        record.forced_bye = white.number
        record.byes[white.number] = ByeKind.PAIRING
        return [f"round {n}: pairing-allocated bye set for {label(white)}"]
    if white.number == black.number:
        raise StateError("a player cannot play themself", hint="name two different players")
    _check_free(division, record, black)
    for r in division.rounds:
        b = r.seat(white.number)
        if r.number < n and b and black.number in (b.white, b.black) and not b.result.forfeit:
            raise StateError(
                f"{label(white)} and {label(black)} already met in round {r.number}; no rematch", topic=Topic.REMATCH
            )
    if any({white.number, black.number} <= set(group) for group in division.forbidden):
        raise StateError(f"{label(white)} and {label(black)} are a forbidden pair", topic=Topic.FORBIDDEN_PAIR,
                         hint="unforbid them first, if they are to meet")
    record.forced.append((white.number, black.number))
    record.boards.append(Board(white.number, black.number))
    return [f"round {n}: {label(white)} – {label(black)} set"]


def force_named(event: Event, division: Division, white: str, black: str) -> list[str]:
    """:func:`force` with the players as typed (number or unique part of the name); ``black`` ``bye`` sets the bye."""
    return force(event, division, *players_named(division, white, black))


def unforce(event: Event, division: Division, white: Player, black: Player | None) -> list[str]:
    """Take back a game (the two players in either order) or, with ``black`` None, the pairing-allocated bye set
    with :func:`force` for the next round."""
    n = division.paired_rounds + 1
    _check_future(event, division, n)
    record = division.find_round(n) or Round(n)
    if black is None:
        if record.forced_bye != white.number:
            raise StateError(f"{label(white)} has no forced bye in round {n}")
        record.forced_bye = None
        del record.byes[white.number]
        said = f"round {n}: the forced bye of {label(white)} is taken out"
    else:
        game = next((g for g in record.forced if set(g) == {white.number, black.number}), None)
        if game is None:
            raise StateError(f"{label(white)} and {label(black)} have no forced game in round {n}")
        record.forced.remove(game)
        record.boards = [b for b in record.boards if (b.white, b.black) != game]
        said = f"round {n}: the forced game {label(division.player(game[0]))} – {label(division.player(game[1]))} " \
               "is taken out"  # fmt: skip
    division.drop_empty_rounds()
    return [said]


def players_named(division: Division, white: str, black: str) -> tuple[Player, Player | None]:
    """The two players of :func:`force` as typed (number or unique part of the name); ``black`` ``bye``: None."""
    return find_player(division, white), None if black.lower() == "bye" else find_player(division, black)


def unpair(division: Division) -> list[str]:
    """Take back the last round's pairing while none of its results is in; forced games and requested byes stay."""
    n = division.paired_rounds
    if not n:
        raise StateError("no round is paired: there is nothing to unpair")
    record = division.round(n)
    done = [i for i, b in enumerate(record.boards, 1) if not b.result.pending]
    if done:
        raise StateError(
            f"round {n} has results, the first on board {done[0]}", topic=Topic.HAS_RESULTS,
            hint="correct them to * first, or use undo",
        )
    record.paired = False
    record.boards = [b for b in record.boards if (b.white, b.black) in record.forced]
    record.byes = {p: k for p, k in record.byes.items() if k != ByeKind.PAIRING or p == record.forced_bye}
    record.spreads = {p: v for p, v in record.spreads.items() if p in record.byes}
    record.board_numbers, record.p12, record.unrated = {}, {}, []
    return [f"round {n} unpaired; {len(record.forced)} forced game(s) and the requested byes kept"]


# -- boards and their results ----------------------------------------------------------------------


def refuse_entered(division: Division, round_number: int, board: Board, *, correction: bool, shown: str) -> None:
    """A result is entered once: refuse a board that has one (shown as ``shown``) unless this is a correction."""
    if not board.result.pending and not correction:
        index = division.round(round_number).board_number(board)
        raise StateError(
            f"round {round_number} board {index} ({board.white}-{board.black}) already has {shown}",
            topic=Topic.USE_CORRECT, field="board", hint="`correct` changes it",
        )


def refuse_changed(division: Division, round_number: int, where: BoardRef, shown: ShownBoard) -> None:
    """Refuse an entry for board ``where`` made from a page that showed it as ``shown``, if it has changed since:
    other players on it (the round paired again), another order, or another result (someone else's entry)."""
    board = board_at(division, round_number, where.number)
    now = f"round {round_number} board {where.number}"
    if (board.white, board.black) != (shown.white, shown.black):
        game = f"{label(division.player(board.white))} – {label(division.player(board.black))}"
        raise StateError(f"{now} is now {game}, not the game the page showed", hint="reload the page and check it")
    if board.result != shown.result:
        raise StateError(f"{now} now has {board.result}, not {shown.result} as the page showed",
                         hint="reload the page and check it")


def locate(division: Division, round_number: int, first: Player, second: Player | None = None) -> Board:
    """The board of ``first`` (and ``second``) in a paired round."""
    if second is not None and second.number == first.number:  # its board was found by the first alone
        raise StateError(f"{label(first)} is named twice", field="player", hint="give the two players of the board")
    record = division.round(round_number)
    if not record.paired:
        raise StateError(f"round {round_number} is not paired yet", field="round")
    board = record.seat(first.number)
    if board is None:
        if first.number in record.byes:
            raise StateError(f"{label(first)} has a bye in round {round_number}", topic=Topic.HAS_BYE)
        raise StateError(f"{label(first)} is not paired in round {round_number}", field="player")
    if second is not None and second.number not in (board.white, board.black):
        raise StateError(
            f"{label(first)} and {label(second)} do not play each other in round {round_number}",
            topic=Topic.NOT_OPPONENTS, field="player", hint="give the board number, or the two players of one board",
        )
    return board


def board_at(division: Division, round_number: int, index: int) -> Board:
    """Board ``index`` (its number as shown) of a paired round."""
    record = division.round(round_number)
    if not record.paired:
        raise StateError(f"round {round_number} is not paired yet", field="round")
    if record.board_numbers:
        found = [b for b in record.boards if record.board_number(b) == index]
        if len(found) == 1:
            return found[0]
        numbers = ", ".join(str(record.board_number(b)) for b in record.boards)
        raise StateError(
            f"round {round_number} has boards {numbers}; there is no single board {index}", topic=Topic.NO_BOARD,
            field="board",
        )
    if not 1 <= index <= len(record.boards):
        raise StateError(
            f"round {round_number} has boards 1-{len(record.boards)}; there is no board {index}", topic=Topic.NO_BOARD,
            field="board",
        )
    return record.boards[index - 1]

