"""Players as federations keep them: lists imported, ratings updated from FIDE's list, FIDE start numbers.

Each function changes a division in memory and returns the messages to show
(:mod:`tmanager.events.service` makes each one journaled change). What a FIDE
list or a CSV file says comes in as plain values
(:mod:`tmanager.formats.ratinglist`, :mod:`tmanager.formats.playercsv`).

**Start numbers** (C.04.2, initial order): before round 1 the players are
numbered by rating, then title (GM, IM, WGM, FM, WIM, CM, WFM, WCM), then name,
and from then on the numbers are the pairing order and the TRF starting ranks
(``start_numbers`` set on the division). A late entry is placed among them in
that order and the players after it move down one number; after the fourth
round has been paired no pairing number may change, so a late entry then gets
the next free number. Renumbering rewrites every place a number appears:
boards, byes, forced games, forbidden pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tmanager import tomlmap
from tmanager.core.playerfields import player_fault
from tmanager.errors import ConfigError, StateError
from tmanager.events.checks import player_fields
from tmanager.events.model import Division, Event, LateEntry, Player, fide_order, label
from tmanager.events.operations import add_player
from tmanager.formats.playercsv import Row
from tmanager.formats.ratinglist import Entry

#: After this many paired rounds no pairing number may change (C.04.2).
FIXED_AFTER = 4


# -- start numbers --------------------------------------------------------------------------------------


def renumber(division: Division, new: Mapping[int, int]) -> None:
    """Give players new numbers (``new``: old → new, a permutation of the ones it names) everywhere."""

    def n(number: int) -> int:
        return new.get(number, number)

    for p in division.players:
        p.number = n(p.number)
    division.players.sort(key=lambda p: p.number)
    division.forbidden = [sorted(n(x) for x in group) for group in division.forbidden]
    division.baku_last = n(division.baku_last) if division.baku_last is not None else None
    for r in division.rounds:
        for b in r.boards:
            b.white, b.black = n(b.white), n(b.black)
        r.byes = {n(p): kind for p, kind in r.byes.items()}
        r.forced = [(n(w), n(b)) for w, b in r.forced]
        r.unrated = [(n(w), n(b)) for w, b in r.unrated]
        r.forced_bye = n(r.forced_bye) if r.forced_bye is not None else None
        r.spreads = {n(p): v for p, v in r.spreads.items()}
        r.board_numbers = {n(p): v for p, v in r.board_numbers.items()}
        r.p12 = {n(p): v for p, v in r.p12.items()}


def assign_start_numbers(division: Division) -> list[str]:
    """Number the players 1… in FIDE's initial order and make the numbers the pairing order."""
    paired = division.paired_rounds
    if division.round_robin and paired:
        raise StateError("a round robin's numbers are its Berger numbers: they cannot change once round 1 is paired")
    if paired >= FIXED_AFTER:
        raise StateError(
            f"round {paired} is paired: no pairing number may change after round {FIXED_AFTER} is paired (C.04.2)"
        )
    if not division.players:
        raise StateError("the division has no players yet", hint="enter them first (add-player, import-players)")
    order = sorted(division.players, key=fide_order)
    new = {p.number: i for i, p in enumerate(order, 1)}
    moved = sum(1 for old, number in new.items() if old != number)
    renumber(division, new)
    division.start_numbers = True
    top = ", ".join(label(p) for p in division.players[:3])
    return [
        f"start numbers by rating, title and name: {len(order)} players, {moved} renumbered; {top}…",
    ]


def enter_player(
    event: Event, division: Division, player: Player, *, missed: LateEntry | None = None, take_bye: bool = False
) -> list[str]:
    """Enter a player (:func:`~tmanager.events.operations.add_player`); in a start-numbered division, until
    round 4 is paired, at the start number FIDE's order gives (the players after it move down one first, so
    that every message names the numbers as they end up); the last message says where the player stands."""
    placed = ""
    if division.start_numbers and division.paired_rounds < FIXED_AFTER:
        place = next((p.number for p in division.players if fide_order(player) < fide_order(p)), None)
        if place is not None:
            renumber(division, {p.number: p.number + 1 for p in division.players if p.number >= place})
            player.number = place
            count = len(division.players) + 1
            placed = (f"start number {place} by rating, title and name; the players after it move down one, to nos. "
                      f"{place + 1}-{count}")  # fmt: skip
    messages = add_player(event, division, player, missed=missed, take_bye=take_bye)
    if placed:
        division.players.sort(key=lambda p: p.number)  # in start-number order, as renumber leaves them
    if not division.start_numbers:
        rank = division.ranks()[player.number]
        return [*messages, f"added {label(player)}, pairing rank {rank} of {len(division.players)} by rating"]
    if division.paired_rounds >= FIXED_AFTER:
        return [*messages, f"added {label(player)}, paired last: start numbers are fixed after round {FIXED_AFTER}"
                " is paired (C.04.2)"]  # fmt: skip
    return [*messages, f"added {label(player)}: " + (placed or f"start number {player.number}, last in FIDE's order")]


# -- lists ---------------------------------------------------------------------------------------------


def _check_rating_kind(entries: Mapping[int, Entry], event: Event) -> None:
    """Refuse a list without the event's kind of rating (a rapid event given the standard list): every player
    would be taken as unrated."""
    if entries and not any(event.rating_list in e.ratings for e in entries.values()):
        held = "/".join(sorted({kind for e in entries.values() for kind in e.ratings}))
        raise StateError(
            f"the rating list holds {held} ratings, not the {event.rating_list} ratings the event is rated on "
            "(rating_list)", hint=f"give FIDE's {event.rating_list} list, or the combined players_list_foa"
        )


def _from_entry(entry: Entry, event: Event) -> dict[str, object]:
    """A player's fields as a FIDE list gives them."""
    fields: dict[str, object] = {
        "fide_id": entry.fide_id, "name": entry.name, "title": entry.title, "federation": entry.federation,
        "sex": entry.sex, "rating": entry.rating(event.rating_list), "k": entry.k_factor(event.rating_list),
    }  # fmt: skip
    if entry.birth_year is not None:
        fields["birth"] = str(entry.birth_year)
    return fields


def import_players(
    event: Event, division: Division, rows: Sequence[Row], entries: Mapping[int, Entry] | None, *, source: str
) -> list[str]:
    """Enter the players of a CSV file (``rows``), each completed from a FIDE list (``entries``, by FIDE ID;
    None: no list); without rows, every player of ``entries``. All or none: the first bad row refuses the whole
    file."""
    _check_rating_kind(entries or {}, event)
    # Who has each FIDE ID: a player entered (named in the refusal), or an earlier line of the file.
    known = {p.fide_id: f", for {label(p)}" for p in division.players if p.fide_id is not None}
    wanted: list[tuple[str, dict[str, object]]] = []
    if rows:
        for row in rows:
            fields: dict[str, object] = {}
            fide_id = row.fields.get("fide_id")
            if isinstance(fide_id, int) and entries is not None:
                entry = entries.get(fide_id)
                if entry is None:
                    raise StateError(f"{source}: line {row.line}: FIDE ID {fide_id} is not in the rating list",
                                     hint="check the ID and the list")
                fields.update(_from_entry(entry, event))
            fields.update(row.fields)  # what the file says wins over the list
            if "name" not in fields:
                raise StateError(f"{source}: line {row.line}: no name, and no rating list to look the FIDE ID up",
                                 hint="give the name, or --list with FIDE's list")
            wanted.append((f"{source}: line {row.line}", fields))
    else:
        by_name = sorted((entries or {}).values(), key=lambda e: e.name)
        wanted = [(f"FIDE ID {e.fide_id}", _from_entry(e, event)) for e in by_name]
    if not wanted:
        raise StateError(f"{source}: no players to enter")
    messages: list[str] = []
    for where, wanted_fields in wanted:
        fields = dict(wanted_fields)
        listed = fields.get("fide_id")
        if isinstance(listed, int):
            if listed in known:
                # A player asked for by ID is named by it already: said once, not 'FIDE ID 1: FIDE ID 1 is …'.
                said = f"FIDE ID {listed} is already entered{known[listed]}"
                raise StateError(f"{where}: {said}" if rows else said, hint="leave them out of the CSV or --ids")
            known[listed] = ""
        fields.setdefault("number", max((p.number for p in division.players), default=0) + 1)
        # Checked before the fields become a Player: a sex that is none failed there as a malformed event file
        # (the event file's name before the CSV's, 'player.sex: is not one of …').
        fault = player_fault(fields)
        if fault is not None:
            raise StateError(f"{where}: {fault[0]}: {fault[1]}")
        player = tomlmap.from_table(Player, fields, f"{where}: player", None)
        try:
            messages += enter_player(event, division, player)
        except (StateError, ConfigError) as exc:  # (a field's refusal by the player check is a ConfigError)
            raise StateError(f"{where}: {exc}") from None
    return [*messages, f"entered {len(wanted)} player(s) from {source}"]


def update_ratings(event: Event, division: Division, entries: Mapping[int, Entry], *, source: str) -> list[str]:
    """Ratings (the event's ``rating_list``) and titles from a FIDE list, for every player with a FIDE ID in it;
    federation, sex and birth year filled in where the event has none."""
    _check_rating_kind(entries, event)
    changed: list[str] = []
    absent: list[str] = []
    for p in division.players:
        entry = entries.get(p.fide_id) if p.fide_id is not None else None
        if entry is None:
            if p.fide_id is not None:
                absent.append(label(p))
            continue
        rating, notes = entry.rating(event.rating_list), []
        if rating != p.rating:
            notes.append(f"{p.rating or 'unrated'} → {rating or 'unrated'}")
            p.rating = rating
        if entry.title != p.title:
            notes.append(f"title {p.title or '-'} → {entry.title or '-'}")
            p.title = entry.title
        if entry.k_factor(event.rating_list) != p.k:
            notes.append(f"K {p.k or '-'} → {entry.k_factor(event.rating_list) or '-'}")
            p.k = entry.k_factor(event.rating_list)
        for key, value in (("federation", entry.federation), ("sex", entry.sex)):
            if value and not getattr(p, key):
                setattr(p, key, value)
        if entry.birth_year is not None and not p.birth:
            p.birth = str(entry.birth_year)
        fault = player_fault(player_fields(p))
        if fault is not None:  # the list's women's title beside the sex the event has (m)
            raise StateError(f"{label(p)}: {source} ({entry.where}): {fault[0]}: {fault[1]}")
        if notes:
            changed.append(f"{label(p)}: {', '.join(notes)}")
    messages = [f"{event.rating_list} ratings from {source}: {len(changed)} player(s) changed", *changed]
    if absent:
        messages.append(f"not in the list (kept as they are): {', '.join(absent)}")
    if changed and division.start_numbers and division.paired_rounds == 0:
        messages.append("the start numbers follow the old ratings: run `start-numbers` to sort them again")
    return messages
