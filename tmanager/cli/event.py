"""Run a human event (Swiss, round robin or manual): players, pairings, results, standings.

Every verb takes the event file first: ``tmanager event VERB EVENT …``. Each
change is one locked, atomic write; the previous version goes to ``old/``
beside the event, and ``tmanager event undo EVENT`` steps back. Players are
named by number or by a unique part of their name. See docs/events.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from tmanager.cli._bounds import check_count
from tmanager.cli._dispatch import HelpFormatter, words
from tmanager.cli.eventfiles import VERBS as FILE_VERBS
from tmanager.cli.eventplayers import VERBS as PLAYER_VERBS
from tmanager.cli.eventprizes import VERBS as PRIZE_VERBS
from tmanager.cli.eventreports import VERBS as REPORT_VERBS
from tmanager.cli.eventverbs import (
    Handler,
    Verb,
    VerbParser,
    load_division,
    naming_the_file,
    no_options,
    read_entry,
    say,
    verb_parser,
    with_settings,
)
from tmanager.core.results import REQUESTED_BYES, ByeKind, Colour
from tmanager.core.tiebreaknames import TIEBREAKS
from tmanager.errors import ConfigError, StateError, TManagerError
from tmanager.events import eventfile, journal, service
from tmanager.events.entries import Entry, ResultEntry
from tmanager.events.model import (
    MAX_TEAM_SIZE,
    Division,
    EntryMode,
    Event,
    LateEntry,
    PairingSystem,
    ScoredSettings,
)
from tmanager.events.rules import SYSTEMS, default_system, rules_for
from tmanager.events.settings import DIVISION_SETTINGS, SETTINGS

EXAMPLES = """\
  tmanager event new spring.toml --name "Spring Open" --rounds 7 --scoring 1-0.5-0
  tmanager event set spring.toml time_control=5400+30 "schedule=2026-04-01 10:00,2026-04-02 10:00"
  tmanager event add-player spring.toml "Smith, John" --rating 2105 --federation ENG
  tmanager event pair spring.toml
  tmanager event result spring.toml 4 1-0          # board 4 of the last round
  tmanager event result spring.toml 12 Smith =     # players 12 and Smith drew
  tmanager event standings spring.toml --round 3
  tmanager event shell spring.toml                 # fast interactive entry
  tmanager event new scrabble.toml --name "Club Scrabble" --rounds 12 --entry scores --set track_firsts=true
  tmanager event result scrabble.toml 7 412 12 389 # player 7 scored 412 against player 12
"""

# -- creating an event --------------------------------------------------------------------------


def _configure_new(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", required=True, help="the event's name")
    p.add_argument("--site", default="", help="where it is played")
    p.add_argument("--start", default="", help="first day, YYYY-MM-DD")
    p.add_argument("--end", default="", help="last day, YYYY-MM-DD")
    p.add_argument("--arbiter", default="", help="chief arbiter")
    p.add_argument("--rounds", type=int, default=0, help="planned rounds (Swiss)")
    p.add_argument(
        "--system", choices=words(SYSTEMS),
        help="pairing system of the divisions (default: dutch; score-based: chew; with --boards: team-swiss)",
    )
    p.add_argument(
        "--entry", choices=words(EntryMode), help="a score-based event (Scrabble): results as scores or spreads"
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="an event or division setting: prizes=5"
    )
    p.add_argument("--cycles", type=int, default=1, help="round-robin cycles (2 = double round robin)")
    p.add_argument("--boards", type=int, help="a team division: players of a team in each match (boards)")
    p.add_argument("--scoring", default="1-0.5-0", help="points for win-draw-loss, e.g. 3-1-0")
    p.add_argument("--tiebreaks", default="BH-C1,BH,SB", help="tie-break order: " + ",".join(TIEBREAKS))
    p.add_argument(
        "--late-entry", choices=words(LateEntry), default=LateEntry.ZERO.value,
        help="score of rounds missed by late entries",
    )
    p.add_argument("--max-byes", type=int, help="requested byes allowed per player")
    p.add_argument("--divisions", default="main", help="division names, comma-separated")


def _new(args: argparse.Namespace) -> int:
    parts = args.scoring.replace("½", "0.5").split("-")
    try:
        win, draw, loss = (float(x) for x in parts)
    except ValueError:
        raise StateError(
            f"{args.scoring!r} is not win-draw-loss points", field="--scoring", hint="write them like 1-0.5-0 or 3-1-0"
        ) from None
    # read as the file's [scoring] is: whole tenths of a point (1.05 was taken as 1), finite (inf: a traceback)
    scoring = eventfile.points_system({"win": win, "draw": draw, "loss": loss}, None)
    check_count(args.boards, option="--boards", most=MAX_TEAM_SIZE)
    system = (PairingSystem(args.system) if args.system else
              default_system(score_based=bool(args.entry), team=args.boards is not None))  # fmt: skip
    event = Event(
        name=args.name,
        rounds=args.rounds,
        site=args.site,
        start=args.start,
        end=args.end,
        arbiter=args.arbiter,
        tiebreaks=[t.strip() for t in args.tiebreaks.split(",") if t.strip()],
        late_entry=LateEntry(args.late_entry),
        max_byes=args.max_byes,
        scoring=scoring,
        divisions=[
            Division(
                name.strip(),
                system=system,
                cycles=args.cycles,
                scored=ScoredSettings(entry=EntryMode(args.entry)) if args.entry else None,
            )
            for name in args.divisions.split(",")
            if name.strip()
        ],
    )
    try:
        event = with_settings(event, [*args.set, *([f"team_size={args.boards}"] if args.boards is not None else [])],
                              args.event)  # fmt: skip
        journal.create(args.event, event)
    except ConfigError as exc:
        raise _as_typed(exc, args.set) from None
    print(f"created {args.event}: {event.name}, {len(event.divisions)} division(s), {event.divisions[0].system}")
    return 0


#: The options of `new` by the file's field each fills.
_NEW_OPTIONS = {
    "event.name": "--name", "event.site": "--site", "event.start": "--start", "event.end": "--end",
    "event.arbiter": "--arbiter", "event.rounds": "--rounds", "event.tiebreaks": "--tiebreaks",
    "event.max_byes": "--max-byes", "division.cycles": "--cycles", "division.name": "--divisions",
    "file.division": "--divisions",
}  # fmt: skip


def _as_typed(exc: ConfigError, settings: Sequence[str]) -> ConfigError:
    """``exc`` naming the option typed (``--start``) where it named the file's field (``event.start``), unless
    ``--set`` gave that field."""
    field = re.sub(r"^division\[\d+\]\.", "division.", exc.field or "")
    given = {word.partition("=")[0].strip() for word in settings}
    if field not in _NEW_OPTIONS or field.rpartition(".")[2] in given:
        return exc
    return exc.relocated(file=exc.file, field=_NEW_OPTIONS[field])


def _configure_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "settings", nargs="+", metavar="KEY=VALUE",
        help="an [event] setting: " + ", ".join(SETTINGS) + "; schedule, tiebreaks and categories take their items "
        "separated by commas, deputies one name each (repeat the key), max_byes= takes the limit away. rounds and "
        "rating_list stay once a round is paired. Or a division's setting (with -d, or the only division's): "
        + ", ".join(DIVISION_SETTINGS) + "; lists separated by commas, KEY= back to the default; once the division "
        "has a paired round only name, team_apart, repeats, factor, prize_bands, team_tiebreaks and prize_games",
    )  # fmt: skip
    # Its own option, not a divisional verb's: the shell gives those its division, and `set name=…` there would
    # have renamed the division, not the event.
    p.add_argument("-d", "--division", help="change this division's settings (every KEY is the division's)")


def _set(args: argparse.Namespace) -> int:
    typed = []
    for word in args.settings:
        key, sep, text = word.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{word[:40]!r} is not KEY=VALUE", field="settings", hint="e.g. time_control=5400+30")
        typed.append((key.strip(), text))
    say(service.change_settings(args.event, typed, division=args.division).messages)
    return 0


# -- before a round: byes, forbidden pairs, forced games ------------------------------------------


def _configure_bye(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--round", type=int, help="round (default: the next one)")
    p.add_argument("--kind", choices=[kind.value for kind in REQUESTED_BYES], help="points of the bye (default: half)")
    p.add_argument("--cancel", action="store_true", help="take back the player's requested bye of that round")


def _bye(args: argparse.Namespace) -> int:
    if args.cancel:
        if args.kind:
            raise ConfigError("a cancelled bye has no kind", field="--kind", hint="leave --kind out with --cancel")
        say(service.cancel_bye(args.event, args.division, args.player, args.round).messages)
        return 0
    kind = ByeKind(args.kind or ByeKind.HALF)
    say(service.request_bye(args.event, args.division, args.player, args.round, kind).messages)
    return 0


def _configure_forbid(p: argparse.ArgumentParser) -> None:
    p.add_argument("players", nargs="*", help="two or more players who must never meet")
    p.add_argument("--teams", choices=("on", "off"), help="players of the same team never meet")


def _forbid(args: argparse.Namespace) -> int:
    teams = args.teams == "on" if args.teams else None
    say(service.forbid(args.event, args.division, args.players, teams=teams).messages)
    return 0


def _configure_unforbid(p: argparse.ArgumentParser) -> None:
    p.add_argument("first", help="a player of the forbidden pair")
    p.add_argument("second", help="the other player")


def _unforbid(args: argparse.Namespace) -> int:
    say(service.unforbid(args.event, args.division, args.first, args.second).messages)
    return 0


def _configure_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("white", help="player with white (or the player to get the bye)")
    p.add_argument("black", help="player with black, or the word bye")
    p.add_argument("--cancel", action="store_true", help="take back that game (or bye), set before")


def _force(args: argparse.Namespace) -> int:
    change = service.unforce if args.cancel else service.force
    say(change(args.event, args.division, args.white, args.black).messages)
    return 0


# -- pairing and results ----------------------------------------------------------------------------


def _configure_pair(p: argparse.ArgumentParser) -> None:
    p.add_argument("--colour", choices=("white", "black"), help="round 1: the top player's colour instead of a lot")
    p.add_argument("--system", help="score-based: pair this round by koth, factored, tsh-swiss, chew, random…")
    p.add_argument(
        "--repeats", type=int,
        help="score-based: how often two players may have met (this round); team-round-robin: games per pairing",
    )  # fmt: skip
    p.add_argument("--seed", type=int, help="seed of the lots (colours, random pairings, firsts), to repeat a run")
    p.add_argument(
        "--explain", action="store_true", help="why each pair and colour (Dutch, round robin, Double-Swiss, team Swiss)"
    )


def _pair(args: argparse.Namespace) -> int:
    colour = Colour.from_word(args.colour) if args.colour else None
    change = service.pair(args.event, args.division, colour=colour, system=args.system, repeats=args.repeats,
                          seed=args.seed, explain=args.explain)  # fmt: skip
    say(change.messages)
    event = journal.load(args.event)
    rules = rules_for(event, event.division(change.division))
    assert change.round is not None  # pairing concerns the round it paired
    first = rules.match_rounds(change.round)[0]  # a Double-Swiss shows game 1 of the match
    print(rules.reports().pairings_text(first), end="")
    return 0


def _unpair(args: argparse.Namespace) -> int:
    say(service.unpair(args.event, args.division).messages)
    return 0


_ENTRY_HELP = "board or the two players, then the result; score-based: BOARD S1 S2 or P1 S1 P2 S2 (or spreads)"


def _configure_result(p: argparse.ArgumentParser) -> None:
    p.add_argument("entry", nargs="+", metavar="BOARD RESULT | P1 P2 RESULT", help=_ENTRY_HELP)
    p.add_argument(
        "--round", type=int, help="round (default: the last paired one; Double-Swiss: game 1 while it lacks results)"
    )
    _entry_options(p)


def _configure_correct(p: argparse.ArgumentParser) -> None:
    p.add_argument("entry", nargs="+", metavar="BOARD RESULT | P1 P2 RESULT", help=_ENTRY_HELP)
    p.add_argument("--round", type=int, required=True, help="the round to correct")
    _entry_options(p)


def _entry_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help="score-based: enter a score below 100 or above 1500")
    rating = p.add_mutually_exclusive_group()
    rating.add_argument("--unrated", action="store_const", const=True, dest="unrated",
                        help="a game played but not rated (TRF's W D L): scored, left out of ratings and norms")
    rating.add_argument("--rated", action="store_const", const=False, dest="unrated",
                        help="a game marked --unrated rated again")  # fmt: skip


def _entry(args: argparse.Namespace) -> Entry:
    """The result line, with --unrated or --rated, which only a chess division's result takes."""
    if args.unrated is None:
        return read_entry(args)
    event, division = load_division(args)
    rules = rules_for(event, division)
    entry = rules.parse_entry(list(args.entry))
    if rules.score_based or not isinstance(entry, ResultEntry):
        raise ConfigError(f"division {division.name!r} is score-based: its games are not rated here",
                          field="--unrated", hint="leave --unrated and --rated out: they mark a chess game's rating")
    return dataclasses.replace(entry, unrated=args.unrated)


def _result(args: argparse.Namespace) -> int:
    change = service.save_result(args.event, args.division, _entry(args), args.round, correction=False,
                                 confirm=args.yes)  # fmt: skip
    say(change.messages)
    return 0


def _correct(args: argparse.Namespace) -> int:
    change = service.save_result(args.event, args.division, _entry(args), args.round, correction=True,
                                 confirm=args.yes)  # fmt: skip
    say(change.messages)
    return 0


def _undo(args: argparse.Namespace) -> int:
    say(service.undo(args.event).messages)
    return 0


def _shell(args: argparse.Namespace) -> int:
    from tmanager.cli.eventshell import Shell

    Shell(args.event, args.division, VERBS).run()
    return 0


# -- the arbiter's password, a dry run (modules imported when used) -------------------------


def _set_password(args: argparse.Namespace) -> int:
    import getpass

    from tmanager.web.auth import set_password

    journal.load(args.event)  # an event file, readable, before anything is asked
    if sys.stdin.isatty():
        password = getpass.getpass("arbiter password: ")
        if getpass.getpass("the same again: ") != password:
            raise StateError(
                "the two passwords differ; nothing was changed", hint="run set-password again and type the same twice"
            )
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    target = set_password(args.event, password)
    print(f"arbiter password set: its scrypt hash is in {target} (mode 0600); sessions open in `tmanager serve` end")
    return 0


def _configure_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rounds", type=int, help="rounds to simulate (default: all remaining)")
    p.add_argument("--seed", type=int, help="random seed, for a repeatable run")


def _dry_run(args: argparse.Namespace) -> int:
    from tmanager.events.dryrun import simulate
    from tmanager.events.reports.render import text

    e = journal.load(args.event)
    for messages, made in simulate(e, args.division, rounds=args.rounds, seed=args.seed):
        say(messages)
        print("\n".join(text(r) for r in made))
    print(f"dry run only: {args.event} is unchanged")
    return 0


# -- the verbs ------------------------------------------------------------------------------------


VERBS: dict[str, Verb] = {
    "new": Verb(
        _configure_new,
        _new,
        "create an event file",
        (
            'new spring.toml --name "Spring Open" --rounds 7',
            'new club.toml --name "Club" --system round-robin --cycles 2',
            'new league.toml --name "League" --system team-swiss --rounds 7 --boards 4',
        ),
        divisional=False,
        in_shell=False,
    ),
    "set": Verb(
        _configure_set,
        _set,
        "change [event] settings (the schedule, the time control, name, place, dates, arbiters, tie-breaks…) or a "
        "division's (system, acceleration, colour in round 1…)",
        (
            'set spring.toml time_control=5400+30 site="Leiden, NED" arbiter="Vos, Anna"',
            'set spring.toml "schedule=2026-04-01 10:00,2026-04-02 10:00,2026-04-03 09:30"',
            'set spring.toml deputies="Jansen, Piet" deputies="Smit, Eva" max_byes=',
            "set spring.toml acceleration=baku initial_colour=white",
            'set leiden.toml -d "B Group" name=Reserves team_apart=true',
        ),
        divisional=False,
    ),
    **PLAYER_VERBS,
    "bye": Verb(
        _configure_bye,
        _bye,
        "a requested half-, zero- or full-point bye (--cancel takes it back)",
        ("bye spring.toml Smith --round 5 --kind half", "bye spring.toml Smith --round 5 --cancel"),
    ),
    "forbid": Verb(
        _configure_forbid,
        _forbid,
        "players who must not meet",
        ("forbid spring.toml 3 17", "forbid spring.toml --teams on"),
    ),
    "unforbid": Verb(
        _configure_unforbid,
        _unforbid,
        "let a forbidden pair meet again (a mistaken forbid, without undoing later changes)",
        ('unforbid spring.toml 3 17', 'unforbid spring.toml Kuiper "de Vries"'),
    ),
    "force": Verb(
        _configure_force,
        _force,
        "set a game (or the bye) of the next round before pairing",
        ("force spring.toml 3 17", "force spring.toml 22 bye", "force spring.toml 3 17 --cancel"),
    ),
    "pair": Verb(
        _configure_pair, _pair, "pair the next round", ("pair spring.toml", "pair spring.toml --colour white")
    ),
    "unpair": Verb(
        no_options, _unpair, "take back the last round's pairing while it has no results", ("unpair spring.toml",)
    ),
    "result": Verb(
        _configure_result,
        _result,
        "enter a result by board or by players",
        ("result spring.toml 4 1-0", "result spring.toml 12 Smith =", "result spring.toml 7 -+"),
    ),
    "correct": Verb(
        _configure_correct, _correct, "change a result of any round", ("correct spring.toml --round 2 4 0-1",)
    ),
    "pairings": REPORT_VERBS["pairings"],
    "norms": REPORT_VERBS["norms"],
    "standings": REPORT_VERBS["standings"],
    **PRIZE_VERBS,
    "team-standings": REPORT_VERBS["team-standings"],
    "highs": REPORT_VERBS["highs"],
    "missing": REPORT_VERBS["missing"],
    "undo": Verb(no_options, _undo, "step back to the previous version of the event", ("undo spring.toml",)),
    "shell": Verb(no_options, _shell, "interactive prompt for fast entry", ("shell spring.toml",), in_shell=False),
    "report": REPORT_VERBS["report"],
    **FILE_VERBS,
    "set-password": Verb(
        no_options,
        _set_password,
        "set the arbiter's password for `tmanager serve` (read from the terminal, or a line of standard input)",
        ("set-password spring.toml",),
        in_shell=False,
    ),
    "dry-run": Verb(
        _configure_dry_run,
        _dry_run,
        "simulate the remaining rounds with random results on a copy (the event is not changed)",
        ("dry-run spring.toml --seed 1", "dry-run spring.toml --rounds 2 --seed 7"),
    ),
}


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=VerbParser)
    for name, verb in VERBS.items():
        p = sub.add_parser(
            name,
            help=verb.help,
            description=verb.help,
            epilog="examples:\n" + "\n".join(f"  tmanager event {line}" for line in verb.examples),
            formatter_class=HelpFormatter,
        )
        p.add_argument("event", type=Path, help="the event file (TOML)")
        verb_parser(p, verb)


def command(args: argparse.Namespace) -> int:
    handler: Handler = args.verb_handler
    try:
        return handler(args)
    except TManagerError as exc:
        raise naming_the_file(exc, args) from exc
