"""``tmanager event`` verbs for the field: players (entered by hand, from a CSV file or a FIDE rating list, edited,
numbered, withdrawn and back, tsh's off) and a team division's teams (rosters and lineups).

The verbs join the verb table of :mod:`tmanager.cli.event` (:data:`VERBS`). See docs/events.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tmanager.cli._dispatch import words
from tmanager.cli.eventverbs import Verb, load_division, no_options, parse_rounds, say, whole_numbers
from tmanager.core.playerfields import Sex, as_fide_writes, sex_fault
from tmanager.errors import ConfigError, StateError, ascii_digits
from tmanager.events import service
from tmanager.events.change import Change
from tmanager.events.model import TITLES, LateEntry, Player

# -- players ------------------------------------------------------------------------------------


def _player_options(p: argparse.ArgumentParser, *, edit: bool) -> None:
    p.add_argument("--title", help=f"FIDE title: {', '.join(TITLES)} (in any case; '' for none)")
    p.add_argument("--rating", type=int, help="rating (0 = unrated)")
    p.add_argument("--k", type=int, help="FIDE's development coefficient K: 10, 20 or 40 (0 = none given)")
    p.add_argument("--fide-id", help="FIDE id ('' for none)")
    p.add_argument("--federation", help="federation, e.g. NED")
    p.add_argument("--sex", help="m or w, as TRF writes it, or FIDE's M and F (any case): the category women")
    p.add_argument("--club", help="club")
    p.add_argument("--team", help="team (see forbid --teams)")
    p.add_argument("--birth", help="birth date YYYY-MM-DD or year")
    if edit:
        p.add_argument("--name", help='new name, "Last, First"')
        p.add_argument("--flags", help="flags, comma-separated (replaces them): junior,woman…")
    else:
        p.add_argument("--flag", action="append", default=[], help="a class or flag (junior, senior, woman…)")


def _player_changes(args: argparse.Namespace) -> dict[str, Any]:
    changes = {
        key: getattr(args, key)
        for key in ("name", "title", "rating", "k", "fide_id", "federation", "sex", "club", "team", "birth")
        if getattr(args, key, None) is not None
    }
    if "fide_id" in changes:
        changes["fide_id"] = _fide_id(changes["fide_id"])
    for key in ("sex", "title", "federation"):  # typed as the CSV's cells are: gm, f, ned
        if key in changes:
            changes[key] = as_fide_writes(key, changes[key])
    if "sex" in changes:
        fault = sex_fault(changes["sex"])
        if fault is not None:
            raise ConfigError(fault, field="--sex")
        changes["sex"] = Sex(changes["sex"])
    if getattr(args, "flags", None) is not None:
        changes["flags"] = [f.strip() for f in args.flags.split(",") if f.strip()]
    return changes


def _fide_id(text: str) -> int | None:
    """``--fide-id`` as typed: '' for none, so that an ID entered by mistake can be taken away as a title or a
    club is (a whole number alone left it no way out but a hand edit); the event's check bounds the number."""
    text = text.strip()
    if not text:
        return None
    if not ascii_digits(text):
        raise ConfigError(f"{text[:40]!r} is not a FIDE ID", field="--fide-id",
                          hint="a whole number of at most ten digits, or '' for none")
    return int(text)


#: What a player's field (the event file's key) is typed as, on ``add-player`` and ``edit-player`` alike.
_TYPED_AS = {
    key: "--" + key.replace("_", "-")
    for key in ("title", "rating", "k", "fide_id", "federation", "sex", "club", "team", "birth", "number")
}


def _as_typed(change: Callable[[], Change], *, name: str, flags: str) -> Change:
    """``change`` made, a refusal of one of the player's fields naming the field as it was typed (``--fide-id``;
    the name and the flags as the verb takes them: ``name``, ``flags``), where the service names it by the event
    file's key (``fide_id``)."""
    try:
        return change()
    except ConfigError as exc:
        typed = {"name": name, "flags": flags}.get(exc.field or "") or _TYPED_AS.get(exc.field or "")
        if typed is None or exc.file:
            raise
        raise exc.relocated(field=typed) from None
    except StateError as exc:
        typed = _TYPED_AS.get(exc.field or "")
        if typed is None:
            raise
        raise StateError(str(exc).removeprefix(f"{exc.field}: "), field=typed, topic=exc.topic) from None


def _configure_add_player(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help='"Last, First"')
    _player_options(p, edit=False)
    p.add_argument("--number", type=int, help="player number (default: the next free one)")
    p.add_argument(
        "--missed", choices=words(LateEntry),
        help="score of rounds already paired (event's late_entry)",
    )
    p.add_argument(
        "--take-bye", action="store_true", help="a late entry plays the current round's bye holder (Chaos's habit)"
    )


def _new_number(args: argparse.Namespace) -> int:
    """``--number`` of a new player or team; 0, which stands for "the next free one" inside, when not given
    (typed, 0 or less is refused: it would silently be taken as that)."""
    if args.number is not None and args.number < 1:
        raise ConfigError(f"must be at least 1, not {args.number}", field="--number",
                          hint="leave --number out for the next free one")
    return args.number or 0


def _add_player(args: argparse.Namespace) -> int:
    number = _new_number(args)
    data = {key: value for key, value in _player_changes(args).items() if key != "name"}
    player = Player(number, args.name, flags=list(args.flag), **data)
    missed = LateEntry(args.missed) if args.missed else None
    change = _as_typed(lambda: service.add_player(args.event, args.division, player, missed=missed,
                                                  take_bye=args.take_bye), name="name", flags="--flag")  # fmt: skip
    say(change.messages)
    return 0


def _configure_edit_player(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    _player_options(p, edit=True)


def _edit_player(args: argparse.Namespace) -> int:
    changes = _player_changes(args)
    change = _as_typed(lambda: service.edit_player(args.event, args.division, args.player, changes), name="--name",
                       flags="--flags")  # fmt: skip
    say(change.messages)
    return 0


def _configure_import_players(p: argparse.ArgumentParser) -> None:
    p.add_argument("players", type=Path, nargs="?", help="a CSV file: name,title,rating,fide_id,federation,sex,birth…")
    p.add_argument("--list", type=Path, help="a FIDE rating list you saved (TXT or XML): completes the CSV's players")
    p.add_argument("--ids", help="without a CSV: these FIDE IDs from the list, comma-separated")
    p.add_argument("--federation", help="without a CSV: every player of this federation in the list")
    p.add_argument("--skip-bad", action="store_true", help="skip the list's junk lines (each is reported)")


def _import_players(args: argparse.Namespace) -> int:
    from tmanager.formats import playercsv, ratinglist

    rows = playercsv.read(args.players) if args.players else []
    if (args.ids or args.federation) and rows:
        raise StateError(
            "--ids and --federation pick players from the list, and a CSV names its own",
            hint="give the CSV, or --list with --ids or --federation, not both",
        )
    entries: dict[int, ratinglist.Entry] | None = None
    if args.list:
        ids: set[int] | None = {fide_id for r in rows if isinstance(fide_id := r.fields.get("fide_id"), int)}
        if not rows:
            if not (args.ids or args.federation):
                raise StateError("which players of the list?", hint="give a CSV, --ids or --federation")
            ids = set(whole_numbers(args.ids, "--ids")) if args.ids else None
        entries = _listing(args, ids=ids, federation=args.federation)
        if not rows and ids and (unlisted := sorted(ids - set(entries))):
            raise StateError(
                f"FIDE ID {unlisted[0]} is not in {args.list}", field="--ids", hint="check the ID and the list"
            )
    elif not rows:
        raise StateError("no players given", hint="give a CSV file of players, or --list with --ids or --federation")
    source = str(args.players or args.list)
    say(service.import_players(args.event, args.division, rows, entries, source=source).messages)
    return 0


def _configure_update_ratings(p: argparse.ArgumentParser) -> None:
    p.add_argument("list", type=Path, help="a FIDE rating list you saved (TXT or XML)")
    p.add_argument("--skip-bad", action="store_true", help="skip the list's junk lines (each is reported)")


def _listing(args: argparse.Namespace, *, ids: set[int] | None, federation: str | None = None) -> dict[int, Any]:
    """The players of the FIDE list ``args.list``; its junk lines refused, or skipped with a warning each."""
    from tmanager.formats import ratinglist

    listing = ratinglist.read_listing(args.list, ids=ids, federation=federation, skip_bad=args.skip_bad)
    say([f"warning: {args.list}: {line} (skipped)" for line in listing.skipped])
    return listing.entries


def _update_ratings(args: argparse.Namespace) -> int:

    _, division = load_division(args)
    ids = {p.fide_id for p in division.players if p.fide_id is not None}
    entries = _listing(args, ids=ids)
    say(service.update_ratings(args.event, args.division, entries, source=str(args.list)).messages)
    return 0


def _start_numbers(args: argparse.Namespace) -> int:
    say(service.start_numbers(args.event, args.division).messages)
    return 0


def _configure_withdraw(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--rounds", help="only these future rounds, e.g. 5,6 (default: for good)")


def _withdraw(args: argparse.Namespace) -> int:
    say(service.withdraw(args.event, args.division, args.player, parse_rounds(args.rounds)).messages)
    return 0


def _return(args: argparse.Namespace) -> int:
    say(service.reinstate(args.event, args.division, args.player, parse_rounds(args.rounds)).messages)
    return 0


def _configure_off(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--spread", type=int, help="spread per missed round (default: the division's forfeit_spread)")
    p.add_argument("--rounds", help="only these future rounds, e.g. 5,6 (default: for good)")


def _off(args: argparse.Namespace) -> int:
    say(service.set_off(args.event, args.division, args.player, args.spread, parse_rounds(args.rounds)).messages)
    return 0


# -- teams --------------------------------------------------------------------------------------


def _configure_add_team(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the team's name")
    p.add_argument("players", nargs="*", help="its roster in board order: players by number or name")
    p.add_argument("--number", type=int, help="team number (default: the next free one)")
    p.add_argument("--short", default="", help="a short name (TRF nickname, up to 5 letters)")


def _add_team(args: argparse.Namespace) -> int:
    change = service.add_team(args.event, args.division, args.name, number=_new_number(args), short=args.short,
                              players=args.players)  # fmt: skip
    say(change.messages)
    return 0


def _configure_roster(p: argparse.ArgumentParser) -> None:
    p.add_argument("team", help="team number or unique part of its name")
    p.add_argument("players", nargs="*", help="the roster in board order: players by number or name")


def _roster(args: argparse.Namespace) -> int:
    say(service.roster(args.event, args.division, args.team, args.players).messages)
    return 0


def _configure_lineup(p: argparse.ArgumentParser) -> None:
    p.add_argument("team", help="team number or unique part of its name")
    p.add_argument("players", nargs="+", help="one per board, in order: a player of the roster, - for an empty board")
    p.add_argument(
        "--round", type=int, help="round (default: the last paired one if the team has none there, else the next)"
    )


def _lineup(args: argparse.Namespace) -> int:
    say(service.lineup(args.event, args.division, args.team, args.players, args.round).messages)
    return 0


VERBS: dict[str, Verb] = {
    "add-player": Verb(
        _configure_add_player,
        _add_player,
        "enter a player (after round 1: a late entry, placed by rating)",
        ('add-player spring.toml "Smith, John" --rating 2105 --fide-id 400123 --flag junior',),
    ),
    "import-players": Verb(
        _configure_import_players,
        _import_players,
        "enter players from a CSV file, completed from a FIDE rating list, or picked from the list",
        (
            "import-players spring.toml entries.csv",
            "import-players spring.toml entries.csv --list players_list_foa.txt",
            "import-players spring.toml --list players_list_xml_foa.xml --ids 1503014,8603677",
        ),
    ),
    "update-ratings": Verb(
        _configure_update_ratings,
        _update_ratings,
        "ratings and titles from a FIDE rating list you saved (players with a FIDE ID)",
        ("update-ratings spring.toml players_list_foa.txt",),
    ),
    "start-numbers": Verb(
        no_options,
        _start_numbers,
        "number the players by rating, title and name (FIDE's initial order): the pairing and TRF numbers",
        ("start-numbers spring.toml",),
    ),
    "edit-player": Verb(
        _configure_edit_player, _edit_player, "change a player's data", ("edit-player spring.toml Smith --rating 2120",)
    ),
    "withdraw": Verb(
        _configure_withdraw,
        _withdraw,
        "withdraw a player for good or for some rounds",
        ("withdraw spring.toml 17", "withdraw spring.toml 17 --rounds 4,5"),
    ),
    "return": Verb(_configure_withdraw, _return, "bring a withdrawn player back", ("return spring.toml 17",)),
    "off": Verb(
        _configure_off,
        _off,
        "score-based: take a player out of the pairings (tsh's off), each missed round scored with a spread",
        ("off scrabble.toml 4 --spread -50", "off scrabble.toml Smith --rounds 5,6"),
    ),
    "add-team": Verb(
        _configure_add_team,
        _add_team,
        "team division: enter a team, with its roster in board order",
        ('add-team league.toml "Rooks" 1 4 7 9 --short ROO',),
    ),
    "roster": Verb(
        _configure_roster, _roster, "team division: a team's roster in board order",
        ("roster league.toml Rooks 4 1 7 9",),
    ),
    "lineup": Verb(
        _configure_lineup,
        _lineup,
        "team division: a team's lineup for a round (before pairing, or before its results)",
        ("lineup league.toml Rooks 1 4 7 9", "lineup league.toml 2 3 - 8 11 --round 5"),
    ),
}
