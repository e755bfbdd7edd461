"""Run a human event (Swiss, round robin or manual): players, pairings, results, standings.

Every verb takes the event file first: ``tmanager event VERB EVENT …``. Each
change is one locked, atomic write; the previous version goes to ``old/``
beside the event, and ``tmanager event undo EVENT`` steps back. Players are
named by number or by a unique part of their name. See docs/events.md.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tmanager import event as ev
from tmanager.cli._settings import parse_assignments
from tmanager.core.tiebreaks import TIEBREAKS
from tmanager.errors import ConfigError, StateError, TManagerError
from tmanager.pairing import PointsSystem

EXAMPLES = """\
  tmanager event new spring.toml --name "Spring Open" --rounds 7 --scoring 1-0.5-0
  tmanager event add-player spring.toml "Smith, John" --rating 2105 --federation ENG
  tmanager event pair spring.toml
  tmanager event result spring.toml 4 1-0          # board 4 of the last round
  tmanager event result spring.toml 12 Smith =     # players 12 and Smith drew
  tmanager event standings spring.toml --round 3
  tmanager event shell spring.toml                 # fast interactive entry
  tmanager event new scrabble.toml --name "Club Scrabble" --rounds 12 --entry scores --set track_firsts=true
  tmanager event result scrabble.toml 7 412 12 389 # player 7 scored 412 against player 12
"""

# Results starting with "-" would be read as options (or the "--" separator):
# the verb parsers protect them with this mark, stripped again before use.
_MARK = "\x00"
_DASHED = frozenset({"-+", "--", "-:+", "-:-"})

Handler = Callable[[argparse.Namespace], int]


class _VerbParser(argparse.ArgumentParser):
    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        protected = [_MARK + a if a in _DASHED else a for a in (sys.argv[1:] if args is None else args)]
        return super().parse_known_args(protected, namespace)


def _say(messages: Sequence[str]) -> None:
    for m in messages:
        print(m, file=sys.stderr if m.startswith("warning:") else sys.stdout)


def _change(args: argparse.Namespace, operation: Callable[[ev.Event, ev.Division], list[str]]) -> int:
    _say(ev.apply(args.event, lambda e: operation(e, e.division(args.division))))
    return 0


def _rounds(text: str | None) -> list[int]:
    if not text:
        return []
    try:
        rounds = sorted({int(x) for x in text.replace(" ", "").split(",") if x})
    except ValueError:
        raise StateError(f"{text!r} is not a list of rounds; write e.g. 3,4") from None
    if any(r < 1 for r in rounds):
        raise StateError("rounds start at 1")
    return rounds


# -- verbs -------------------------------------------------------------------------


def _configure_new(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", required=True, help="the event's name")
    p.add_argument("--site", default="", help="where it is played")
    p.add_argument("--start", default="", help="first day, YYYY-MM-DD")
    p.add_argument("--end", default="", help="last day, YYYY-MM-DD")
    p.add_argument("--arbiter", default="", help="chief arbiter")
    p.add_argument("--rounds", type=int, default=0, help="planned rounds (Swiss)")
    p.add_argument(
        "--system",
        choices=(*ev.SYSTEMS, *ev.SCORED_SYSTEMS),
        help="pairing system of the divisions (default: dutch; score-based: chew)",
    )
    p.add_argument("--entry", choices=ev.ENTRIES, help="a score-based event (Scrabble): results as scores or spreads")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a division setting, e.g. bye_spread=50"
    )
    p.add_argument("--cycles", type=int, default=1, help="round-robin cycles (2 = double round robin)")
    p.add_argument("--scoring", default="1-0.5-0", help="points for win-draw-loss, e.g. 3-1-0")
    p.add_argument("--tiebreaks", default="BH-C1,BH,SB", help="tie-break order: " + ",".join(TIEBREAKS))
    p.add_argument(
        "--late-entry", choices=("zero", "half"), default="zero", help="score of rounds missed by late entries"
    )
    p.add_argument("--max-byes", type=int, help="requested byes allowed per player")
    p.add_argument("--divisions", default="main", help="division names, comma-separated")


def _new(args: argparse.Namespace) -> int:
    parts = args.scoring.replace("½", "0.5").split("-")
    try:
        win, draw, loss = (round(float(x) * 10) for x in parts)
    except ValueError:
        raise StateError(f"--scoring {args.scoring!r}: write win-draw-loss points, e.g. 1-0.5-0 or 3-1-0") from None
    event = ev.Event(
        name=args.name,
        rounds=args.rounds,
        site=args.site,
        start=args.start,
        end=args.end,
        arbiter=args.arbiter,
        tiebreaks=[t.strip() for t in args.tiebreaks.split(",") if t.strip()],
        late_entry=args.late_entry,
        max_byes=args.max_byes,
        scoring=PointsSystem(win=win, draw=draw, loss=loss, pairing_bye=win),
        divisions=[
            ev.Division(
                name.strip(),
                system=args.system or ("chew" if args.entry else "dutch"),
                cycles=args.cycles,
                scored=ev.ScoredRules(entry=args.entry) if args.entry else None,
            )
            for name in args.divisions.split(",")
            if name.strip()
        ],
    )
    event = _with_settings(event, args.set, args.event)
    ev.create(args.event, event)
    print(f"created {args.event}: {event.name}, {len(event.divisions)} division(s), {event.divisions[0].system}")
    return 0


def _with_settings(event: ev.Event, settings: Sequence[str], path: Path) -> ev.Event:
    """The event with ``KEY=VALUE`` settings on every division, checked as the event file would be."""
    if not settings:
        return event
    data = tomllib.loads(ev.dumps(event))
    for key, value in parse_assignments(list(settings)):
        for division in data["division"]:
            division[key] = value
    return ev.from_toml(data, path)


def _player_options(p: argparse.ArgumentParser, *, edit: bool) -> None:
    p.add_argument("--rating", type=int, help="rating (0 = unrated)")
    p.add_argument("--fide-id", type=int, help="FIDE id")
    p.add_argument("--federation", help="federation, e.g. NED")
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
        for key in ("name", "rating", "fide_id", "federation", "club", "team", "birth")
        if getattr(args, key, None) is not None
    }
    if getattr(args, "flags", None) is not None:
        changes["flags"] = [f.strip() for f in args.flags.split(",") if f.strip()]
    return changes


def _configure_add_player(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help='"Last, First"')
    _player_options(p, edit=False)
    p.add_argument("--number", type=int, help="player number (default: the next free one)")
    p.add_argument("--missed", choices=("zero", "half"), help="score of rounds already paired (event's late_entry)")


def _add_player(args: argparse.Namespace) -> int:
    def operation(e: ev.Event, d: ev.Division) -> list[str]:
        number = args.number or max((p.number for p in d.players), default=0) + 1
        player = ev.Player(number, args.name, flags=list(args.flag))
        ev.edit_player(d, player, {k: v for k, v in _player_changes(args).items() if k != "name"})
        return ev.add_player(e, d, player, missed=args.missed)

    return _change(args, operation)


def _configure_edit_player(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    _player_options(p, edit=True)


def _edit_player(args: argparse.Namespace) -> int:
    return _change(args, lambda e, d: ev.edit_player(d, ev.find_player(d, args.player), _player_changes(args)))


def _configure_withdraw(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--rounds", help="only these future rounds, e.g. 5,6 (default: for good)")


def _withdraw(args: argparse.Namespace) -> int:
    return _change(args, lambda e, d: ev.withdraw(d, ev.find_player(d, args.player), _rounds(args.rounds)))


def _return(args: argparse.Namespace) -> int:
    return _change(args, lambda e, d: ev.reinstate(d, ev.find_player(d, args.player), _rounds(args.rounds)))


def _configure_bye(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--round", type=int, help="round (default: the next one)")
    p.add_argument("--kind", choices=("half", "zero", "full"), default="half", help="points of the bye")


def _bye(args: argparse.Namespace) -> int:
    def operation(e: ev.Event, d: ev.Division) -> list[str]:
        n = args.round or d.paired_rounds + 1
        return ev.request_bye(e, d, ev.find_player(d, args.player), n, args.kind)

    return _change(args, operation)


def _configure_forbid(p: argparse.ArgumentParser) -> None:
    p.add_argument("players", nargs="*", help="two or more players who must never meet")
    p.add_argument("--teams", choices=("on", "off"), help="players of the same team never meet")


def _forbid(args: argparse.Namespace) -> int:
    def operation(e: ev.Event, d: ev.Division) -> list[str]:
        messages = []
        if args.teams:
            d.team_apart = args.teams == "on"
            messages.append(f"players of one team {'never' if d.team_apart else 'may'} meet")
        if args.players or not args.teams:
            messages += ev.forbid(d, [ev.find_player(d, x) for x in args.players])
        return messages

    return _change(args, operation)


def _configure_force(p: argparse.ArgumentParser) -> None:
    p.add_argument("white", help="player with white (or the player to get the bye)")
    p.add_argument("black", help="player with black, or the word bye")


def _force(args: argparse.Namespace) -> int:
    return _change(args, lambda e, d: ev.force_named(e, d, args.white, args.black))


def _configure_pair(p: argparse.ArgumentParser) -> None:
    p.add_argument("--colour", choices=("white", "black"), help="round 1: the top player's colour instead of a lot")
    p.add_argument("--system", help="score-based: pair this round by koth, factored, tsh-swiss, chew, random…")
    p.add_argument("--repeats", type=int, help="score-based: how often two players may have met (this round)")
    p.add_argument("--seed", type=int, help="seed of the lots (colours, random pairings, firsts), to repeat a run")


def _pair(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed) if args.seed is not None else None

    def operation(e: ev.Event, d: ev.Division) -> list[str]:
        if d.scored is None:
            if args.system or args.repeats is not None:
                raise StateError("--system and --repeats are for score-based divisions (set entry)")
            return ev.pair(e, d, colour=args.colour, rng=rng)
        from tmanager import event_scored

        return event_scored.pair(e, d, rng=rng, system=args.system, repeats=args.repeats)

    status = _change(args, operation)
    _print_pairings(ev.load(args.event), args.division, None)
    return status


def _unpair(args: argparse.Namespace) -> int:
    return _change(args, lambda e, d: ev.unpair(d))


_ENTRY_HELP = "board or the two players, then the result; score-based: BOARD S1 S2 or P1 S1 P2 S2 (or spreads)"


def _configure_result(p: argparse.ArgumentParser) -> None:
    p.add_argument("entry", nargs="+", metavar="BOARD RESULT | P1 P2 RESULT", help=_ENTRY_HELP)
    p.add_argument("--round", type=int, help="round (default: the last paired one)")
    p.add_argument("--yes", action="store_true", help="score-based: enter a score below 100 or above 1500")


def _configure_correct(p: argparse.ArgumentParser) -> None:
    p.add_argument("entry", nargs="+", metavar="BOARD RESULT | P1 P2 RESULT", help=_ENTRY_HELP)
    p.add_argument("--round", type=int, required=True, help="the round to correct")
    p.add_argument("--yes", action="store_true", help="score-based: enter a score below 100 or above 1500")


def enter_result(
    e: ev.Event,
    d: ev.Division,
    words: Sequence[str],
    round_number: int | None,
    *,
    correction: bool,
    confirm: bool = False,
) -> list[str]:
    """A result line: ``BOARD RESULT`` or ``P1 P2 RESULT`` (the result read as P1 against P2).

    A score-based division reads its own lines (:func:`tmanager.event_scored.enter`).
    """
    words = [w.replace(_MARK, "") for w in words]
    if d.scored is not None:
        from tmanager import event_scored

        return event_scored.enter(e, d, words, round_number, correction=correction, confirm=confirm)
    n = round_number or d.paired_rounds
    if n < 1:
        raise StateError("no round is paired yet")
    if len(words) == 2:
        if not words[0].isdigit():
            raise StateError(f"{words[0]!r} is not a board number; give a board or two players, then the result")
        board = ev.board_at(d, n, int(words[0]))
        result = ev.parse_result(words[1])
    elif len(words) == 3:
        first, second = ev.find_player(d, words[0]), ev.find_player(d, words[1])
        board = ev.locate(d, n, first, second)
        result = ev.parse_result(words[2])
        if first.number == board.black:
            result = ev.reverse_result(result)
    else:
        raise StateError("give BOARD RESULT or P1 P2 RESULT, e.g. `4 1-0` or `12 7 =`")
    return ev.set_result(e, d, n, board, result, correction=correction)


def save_result(
    path: Path,
    division: str | None,
    words: Sequence[str],
    round_number: int | None,
    *,
    correction: bool,
    confirm: bool = False,
) -> list[str]:
    """Enter one result as one change, then run the event's hooks (tmanager.hooks)."""
    from tmanager import hooks

    done: dict[str, Any] = {}

    def operation(e: ev.Event) -> list[str]:
        d = e.division(division)
        n = round_number or d.paired_rounds
        before = len([b for r, b in ev.missing(d) if r == n])
        messages = enter_result(e, d, words, round_number, correction=correction, confirm=confirm)
        done.update(division=d.name, round=n, completed=before > 0 and not any(r == n for r, _ in ev.missing(d)))
        return messages

    messages = ev.apply(path, operation)
    return messages + hooks.after_results(path, done["division"], done["round"], completed=done["completed"])


def _result(args: argparse.Namespace) -> int:
    _say(save_result(args.event, args.division, args.entry, args.round, correction=False, confirm=args.yes))
    return 0


def _correct(args: argparse.Namespace) -> int:
    _say(save_result(args.event, args.division, args.entry, args.round, correction=True, confirm=args.yes))
    return 0


def _configure_round(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="round (default: the last paired one)")


def _configure_standings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="standings after this round (default: the last paired one)")
    p.add_argument("--flag", help="only players with this flag (junior, woman…)")


def _pairings(args: argparse.Namespace) -> int:
    _print_pairings(ev.load(args.event), args.division, args.round)
    return 0


def _print_pairings(e: ev.Event, division: str | None, round_number: int | None) -> None:
    d = e.division(division)
    if d.scored is not None:
        from tmanager import reports, reports_scored

        print(reports.text(reports_scored.pairings(e, d, round_number)), end="")
        return
    n = round_number or d.paired_rounds
    if n == 0:
        raise StateError("no round is paired yet; `pair` pairs round 1")
    record = d.round(n)
    if not record.paired:
        raise StateError(f"round {n} is not paired yet")
    before = ev.scores(e, d, n - 1)
    print(f"{e.name}, division {d.name}: round {n}")

    def side(number: int) -> list[str]:
        p = d.player(number)
        return [ev.label(p), str(p.rating or ""), ev.format_points(before[number])]

    rows = [[str(i), *side(b.white), b.result, *side(b.black)] for i, b in enumerate(record.boards, 1)]
    _table(["Bd", "White", "Rtg", "Pts", "Result", "Black", "Rtg", "Pts"], rows, left={1, 4, 5})
    entries = ev.round_games(d, record)
    for number, kind in record.byes.items():
        points = ev.format_points(e.scoring.points(entries[number]))
        print(f"bye: {ev.label(d.player(number))}, {kind} ({points})")


def _table(header: list[str], rows: list[list[str]], *, left: set[int]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print("  ".join(cells).rstrip())


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.2f}".rstrip("0")


def _standings(args: argparse.Namespace) -> int:
    e = ev.load(args.event)
    d = e.division(args.division)
    if d.scored is not None:
        from tmanager import reports, reports_scored

        if args.flag:
            raise StateError("--flag ranks chess classes; a score-based division has one ranking")
        print(reports.text(reports_scored.standings(e, d, args.round)), end="")
        return 0
    n = d.paired_rounds if args.round is None else args.round
    lines = ev.standings(e, d, n, flag=args.flag)
    pending = sum(1 for r, _ in ev.missing(d) if r <= n)
    title = f"{e.name}, division {d.name}: standings after round {n}"
    print(
        title
        + (f" ({pending} result(s) still missing)" if pending else "")
        + (f", flag {args.flag}" if args.flag else "")
    )
    rows = [
        [
            str(s.rank),
            str(s.player.number),
            s.player.name + (" (withdrawn)" if s.player.status == "withdrawn" else ""),
            str(s.player.rating or ""),
            ev.format_points(s.points),
            *(_number(v) for v in s.values),
        ]
        for s in lines
    ]
    _table(["Rk", "No", "Name", "Rtg", "Pts", *e.tiebreaks], rows, left={2})
    return 0


def _missing(args: argparse.Namespace) -> int:
    e = ev.load(args.event)
    d = e.division(args.division)
    pending = ev.missing(d)
    for n, b in pending:
        index = d.round(n).board_number(b)
        state = "adjourned" if b.result == "adj" else "no result"
        print(f"round {n} board {index}: {ev.label(d.player(b.white))} - {ev.label(d.player(b.black))}: {state}")
    if not pending:
        print(f"no results missing (round {d.paired_rounds} is the last paired)")
    return 0


def _undo(args: argparse.Namespace) -> int:
    print(ev.undo(args.event))
    return 0


def _shell(args: argparse.Namespace) -> int:
    Shell(args.event, args.division).run()
    return 0


def _nothing(p: argparse.ArgumentParser) -> None:
    pass


# -- reports and exports (tmanager.reports, event_trf, tou, dryrun: imported when used) --------------------


def _configure_report(p: argparse.ArgumentParser) -> None:
    from tmanager.reports import KINDS

    p.add_argument("--round", type=int, help="pairings of this round, standings and tables after it (default: last)")
    p.add_argument("--only", action="append", choices=(*KINDS, "highs"), help="only this report (repeatable)")
    p.add_argument("--css", type=Path, help="a stylesheet linked after tmanager.css (default: the event's stylesheet)")
    p.add_argument("-q", "--quiet", action="store_true", help="write the files without printing the reports")


def _report(args: argparse.Namespace) -> int:
    from tmanager import reports, reports_scored

    e = ev.load(args.event)
    divisions = [e.division(args.division)] if args.division or len(e.divisions) == 1 else e.divisions
    made = []
    for d in divisions:
        if d.scored is not None:
            made += reports_scored.build(e, d, args.only or (), args.round)
        else:
            made += reports.build(reports.context(e, d, args.round), args.only or (), args.round)
    directory = reports.publish(args.event, e, made, stylesheet=args.css)
    if not args.quiet:
        print("\n".join(reports.text(r) for r in made), end="")
    print(f"wrote {len(made)} report(s) as text and HTML; index: {directory / 'index.html'}")
    return 0


def _configure_export_trf(p: argparse.ArgumentParser) -> None:
    p.add_argument("output", type=Path, help="the TRF file to write")


def _export_trf(args: argparse.Namespace) -> int:
    from tmanager import event_trf
    from tmanager.files import atomic_write

    e = ev.load(args.event)
    d = e.division(args.division)  # event_trf.dumps refuses a score-based division
    atomic_write(args.output, event_trf.dumps(e, d))
    print(f"wrote {args.output}: {len(d.players)} players, {d.paired_rounds} paired round(s)")
    return 0


def _configure_import_trf(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, help="the TRF file to read")


def _import_trf(args: argparse.Namespace) -> int:
    from tmanager import event_trf

    e = event_trf.read(args.input)
    ev.create(args.event, e)
    d = e.divisions[0]
    print(f"created {args.event} from {args.input}: {len(d.players)} players, {d.paired_rounds} paired round(s)")
    return 0


def _configure_export_tou(p: argparse.ArgumentParser) -> None:
    p.add_argument("output", type=Path, help="the .TOU file to write, e.g. A.TOU")
    p.add_argument("--aliases", type=Path, help='TOML table of rating-list names: "Wiegand, Dave" = "David Wiegand"')
    p.add_argument("--letter", help="division letter of the *line (default: the division name's first letter)")
    p.add_argument("--date", help="date of the *M line, YYYY-MM-DD (default: the event's end or start)")


def _export_tou(args: argparse.Namespace) -> int:
    import tomllib

    from tmanager import tou
    from tmanager.files import atomic_write

    e = ev.load(args.event)
    d = e.division(args.division)
    aliases: dict[str, str] = {}
    if args.aliases:
        try:
            aliases = tomllib.loads(args.aliases.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read the alias table: {exc}", file=args.aliases) from None
        if not all(isinstance(v, str) for v in aliases.values()):
            raise ConfigError("every alias must be a string", file=args.aliases, hint='"Last, First" = "First Last"')
    date = args.date or e.end or e.start
    if not date:
        raise StateError("the event has no date: give --date YYYY-MM-DD")
    letter = (args.letter or d.name[:1]).upper()
    if d.scored is not None:
        from tmanager import event_scored

        players = event_scored.tou_players(d, aliases)
    else:
        players = tou.from_event(e, d, aliases)
    text = tou.dumps(name=e.name, date=date, division=letter, players=players)
    atomic_write(args.output, text)
    print(f"wrote {args.output}: {len(d.players)} players, {d.paired_rounds} round(s)")
    return 0


def _configure_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rounds", type=int, help="rounds to simulate (default: all remaining)")
    p.add_argument("--seed", type=int, help="random seed, for a repeatable run")


def _dry_run(args: argparse.Namespace) -> int:
    from tmanager import dryrun, reports

    e = ev.load(args.event)
    for messages, made in dryrun.simulate(e, args.division, rounds=args.rounds, seed=args.seed):
        _say(messages)
        print("\n".join(reports.text(r) for r in made))
    print(f"dry run only: {args.event} is unchanged")
    return 0


def _set_password(args: argparse.Namespace) -> int:
    import getpass

    from tmanager.web.auth import set_password

    ev.load(args.event)  # an event file, readable, before anything is asked
    if sys.stdin.isatty():
        password = getpass.getpass("arbiter password: ")
        if getpass.getpass("the same again: ") != password:
            raise StateError("the two passwords differ; nothing was changed")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    target = set_password(args.event, password)
    print(f"arbiter password set: its scrypt hash is in {target} (mode 0600); sessions open in `tmanager serve` end")
    return 0


# -- score-based divisions (tmanager.event_scored, reports_scored, tfile: imported when used) ----------


def _configure_off(p: argparse.ArgumentParser) -> None:
    p.add_argument("player", help="number or unique part of the name")
    p.add_argument("--spread", type=int, help="spread per missed round (default: the division's forfeit_spread)")
    p.add_argument("--rounds", help="only these future rounds, e.g. 5,6 (default: for good)")


def _off(args: argparse.Namespace) -> int:
    from tmanager import event_scored

    return _change(
        args,
        lambda e, d: event_scored.set_off(d, ev.find_player(d, args.player), args.spread, _rounds(args.rounds)),
    )


def _configure_highs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--round", type=int, help="games up to this round (default: the last paired one)")
    p.add_argument("--count", type=int, default=10, help="entries per list (default 10)")


def _highs(args: argparse.Namespace) -> int:
    from tmanager import reports, reports_scored

    e = ev.load(args.event)
    print(reports.text(reports_scored.highs(e, e.division(args.division), args.round, args.count)), end="")
    return 0


def _export_t(args: argparse.Namespace) -> int:
    from tmanager import event_scored
    from tmanager.formats import tsh

    e = ev.load(args.event)
    d = e.division(args.division)
    players = event_scored.to_t(d)
    tsh.write(args.output, players)
    print(f"wrote {args.output}: {len(players)} players, {d.paired_rounds} round(s)")
    return 0


def _configure_import_t(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, help="the tsh .t file to read")
    p.add_argument("--name", help="the event's name (default: the file's name)")
    p.add_argument("--rounds", type=int, help="planned rounds (default: the rounds in the file)")
    p.add_argument("--entry", choices=ev.ENTRIES, default="scores", help="how results are entered from now on")
    p.add_argument("--system", choices=(*ev.SCORED_SYSTEMS, "round-robin", "manual"), default="chew")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a division setting, e.g. prize_bands=[1,2]"
    )


def _import_t(args: argparse.Namespace) -> int:
    from tmanager import event_scored
    from tmanager.formats import tsh

    players = tsh.read(args.input)
    rules = ev.ScoredRules(entry=args.entry, track_firsts=any(p.card.p12 for p in players))
    d = ev.Division(args.division or args.input.stem, system=args.system, scored=rules)
    # The settings come first: which p12 codes the boards' order gives depends on them.
    e = _with_settings(ev.Event(name=args.name or args.input.stem, rounds=args.rounds or 0, divisions=[d]), args.set,
                       args.event)  # fmt: skip
    d = e.divisions[0]
    event_scored.from_t(players, d)
    e.rounds = args.rounds or d.paired_rounds
    ev.create(args.event, e)
    print(f"created {args.event} from {args.input}: {len(d.players)} players, {d.paired_rounds} paired round(s)")
    return 0


class Verb(NamedTuple):
    """A verb: its options, its handler, a line of help and example command lines."""

    configure: Callable[[argparse.ArgumentParser], None]
    handler: Handler
    help: str
    examples: tuple[str, ...]


VERBS: dict[str, Verb] = {
    "new": Verb(
        _configure_new,
        _new,
        "create an event file",
        (
            'new spring.toml --name "Spring Open" --rounds 7',
            'new club.toml --name "Club" --system round-robin --cycles 2',
        ),
    ),
    "add-player": Verb(
        _configure_add_player,
        _add_player,
        "enter a player (after round 1: a late entry, placed by rating)",
        ('add-player spring.toml "Smith, John" --rating 2105 --fide-id 400123 --flag junior',),
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
    "bye": Verb(
        _configure_bye,
        _bye,
        "a requested half-, zero- or full-point bye",
        ("bye spring.toml Smith --round 5 --kind half",),
    ),
    "forbid": Verb(
        _configure_forbid,
        _forbid,
        "players who must not meet",
        ("forbid spring.toml 3 17", "forbid spring.toml --teams on"),
    ),
    "force": Verb(
        _configure_force,
        _force,
        "set a game (or the bye) of the next round before pairing",
        ("force spring.toml 3 17", "force spring.toml 22 bye"),
    ),
    "pair": Verb(
        _configure_pair, _pair, "pair the next round", ("pair spring.toml", "pair spring.toml --colour white")
    ),
    "unpair": Verb(
        _nothing, _unpair, "take back the last round's pairing while it has no results", ("unpair spring.toml",)
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
    "pairings": Verb(_configure_round, _pairings, "show a round's pairings", ("pairings spring.toml --round 3",)),
    "standings": Verb(
        _configure_standings,
        _standings,
        "standings with the event's tie-breaks",
        ("standings spring.toml", "standings spring.toml --round 5 --flag junior"),
    ),
    "highs": Verb(
        _configure_highs,
        _highs,
        "score-based: high wins, high losses and low wins (tsh's HighWin, HighLoss, LowWin)",
        ("highs scrabble.toml --count 5",),
    ),
    "missing": Verb(_nothing, _missing, "results still to enter", ("missing spring.toml",)),
    "undo": Verb(_nothing, _undo, "step back to the previous version of the event", ("undo spring.toml",)),
    "shell": Verb(_nothing, _shell, "interactive prompt for fast entry", ("shell spring.toml",)),
    "report": Verb(
        _configure_report,
        _report,
        "write the reports as text and HTML (html/EVENT/ beside the event, with an index)",
        (
            "report spring.toml",
            "report spring.toml --round 3 --only standings --only pairings",
            "report e.toml --css club.css",
        ),
    ),
    "export-trf": Verb(
        _configure_export_trf,
        _export_trf,
        "write a division as a FIDE TRF-16 file (pairing programs check it; import-trf reads it back)",
        ("export-trf spring.toml spring.trf",),
    ),
    "import-trf": Verb(
        _configure_import_trf,
        _import_trf,
        "create an event file from a TRF file",
        ("import-trf spring-copy.toml spring.trf",),
    ),
    "export-tou": Verb(
        _configure_export_tou,
        _export_tou,
        "write a division as an AUPAIR .TOU results file (white went first)",
        ("export-tou spring.toml A.TOU --aliases names.toml",),
    ),
    "export-t": Verb(
        _configure_export_trf,
        _export_t,
        "score-based: write a division as a tsh .t file (import-t reads it back)",
        ("export-t scrabble.toml a.t",),
    ),
    "import-t": Verb(
        _configure_import_t,
        _import_t,
        "create a score-based event file from a tsh .t file",
        ("import-t scrabble.toml a.t --rounds 12 --set prize_bands=[1,2,3]",),
    ),
    "set-password": Verb(
        _nothing,
        _set_password,
        "set the arbiter's password for `tmanager serve` (read from the terminal, or a line of standard input)",
        ("set-password spring.toml",),
    ),
    "dry-run": Verb(
        _configure_dry_run,
        _dry_run,
        "simulate the remaining rounds with random results on a copy (the event is not changed)",
        ("dry-run spring.toml --seed 1", "dry-run spring.toml --rounds 2 --seed 7"),
    ),
}


def _verb_parser(parser: argparse.ArgumentParser, verb: str) -> None:
    configure, handler, _, _ = VERBS[verb]
    configure(parser)
    if verb != "new":
        parser.add_argument("-d", "--division", help="division name (needed when there are several)")
    parser.set_defaults(verb_handler=handler)


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=_VerbParser)
    for verb, (_, _, help_text, examples) in VERBS.items():
        p = sub.add_parser(
            verb,
            help=help_text,
            description=help_text,
            epilog="examples:\n" + "\n".join(f"  tmanager event {line}" for line in examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument("event", type=Path, help="the event file (TOML)")
        _verb_parser(p, verb)


def command(args: argparse.Namespace) -> int:
    handler: Handler = args.verb_handler
    return handler(args)


# -- the shell ---------------------------------------------------------------------

#: Messages the shell can print, with what they mean and what to do.
MESSAGES = {
    "no player matches": "Neither a number nor a part of any player's name: check the spelling or `players`.",
    "matches N players": "A part of a name found several players: type more of it, or the number.",
    "already has the name": "Two players may not share a name: add an initial or a city to tell them apart.",
    "already has a": "The player has a bye, a forced game or a board in that round already; undo it first.",
    "use `correct`": "Results are entered once; `correct` changes them and warns if later rounds used the old one.",
    "is not a result": "Results: 1-0, 0-1, = or ½-½, +- / -+ (forfeit), -- (both forfeit), adj (adjourned), *.",
    "there is no board": "The board number is beyond the round's boards; `pairings` lists them.",
    "do not play each other": "The two players are not opponents in that round; check the numbers.",
    "has a bye": "The player has no game in that round, only a bye; there is no result to enter.",
    "result(s) missing": "A round is paired only when every earlier result is in; `missing` lists them.",
    "cannot be paired": "No pairing satisfies the rules; the message names the rule (rematches, byes, colours).",
    "already met": "FIDE rules forbid rematches; forcing one is refused.",
    "forbidden pair": "The two were declared with `forbid` (or share a team with --teams on).",
    "already had a full-point bye": "Nobody gets the pairing-allocated bye twice.",
    "already paired": "Byes, withdrawals and forced games must come before the round is paired; unpair first.",
    "has results": "Unpair only a round without results; correct them to * or use undo.",
    "late entry": "The newcomer's missed rounds are recorded as zero- or half-point byes (event late_entry).",
    "plays round": "A late entry took the board of the player who had the pairing-allocated bye (Chaos's rule).",
    "paired with the old result": "Later rounds were paired with the old result; unpair and pair again if it matters.",
    "initial colour drawn by lot": "Round 1: the top-ranked player's colour was drawn and is kept in the file.",
    "nothing to undo": "The journal (old/ beside the event) holds no earlier version.",
    "restored": "undo put back the version before the last change; the undone one stays in old/.",
    "another tmanager holds": "Another command is changing the event; try again in a moment.",
    "several divisions": "Choose a division with `division NAME` (or -d NAME).",
    "looks mistyped": "A score below 100 or above 1500 is entered only when confirmed (--yes, or y at the prompt).",
    "does not match the scores": "With entry = 'both' the spread typed must equal the difference of the scores.",
    "is off in round": "A player set off (or withdrawn) gets their off spread for each round they miss.",
    "gibsonized": "The leader cannot be caught any more: Chew pairings give them a non-contender, not a rival.",
    "ambiguous": "The abbreviation fits several commands: type more letters.",
}

SHELL_ONLY = {
    "enter": "enter result mode: lines `BOARD RESULT` or `P1 P2 RESULT`; an empty line leaves",
    "players": "list the players with numbers, ratings and scores",
    "division": "switch to another division: division NAME",
    "help": "help, help COMMAND, help messages",
    "why": "explain the last message",
    "quit": "leave the shell",
}
_SHELL_VERBS = [v for v in VERBS if v not in ("new", "shell", "import-trf", "import-t", "set-password")]


class Shell:
    """tsh-style prompt: abbreviated commands, players by number or name part, a modal result entry."""

    def __init__(self, path: Path, division: str | None) -> None:
        self.path = path
        event = ev.load(path)
        self.division = event.division(division).name
        self.last = ""

    def prompt(self, mode: str = "") -> str:
        d = ev.load(self.path).division(self.division)
        return f"{mode or self.division} r{d.paired_rounds}> "

    def run(self) -> None:
        print(f"{ev.load(self.path).name}: type help for commands, quit to leave")
        while True:
            try:
                line = input(self.prompt())
            except EOFError:
                print()
                return
            if not self.handle(line):
                return

    def say(self, text: str) -> None:
        self.last = text
        print(text)

    def handle(self, line: str) -> bool:
        """Run one line; False to leave."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"error: {exc}")
            return True
        if not words:
            return True
        try:
            name = self.resolve(words[0])
            if name == "quit":
                return False
            self.dispatch(name, words[1:])
        except TManagerError as exc:
            self.say(f"error: {exc}")
        return True

    def resolve(self, word: str) -> str:
        names = _SHELL_VERBS + list(SHELL_ONLY)
        if word.lower() in names:
            return word.lower()
        found = [n for n in names if n.startswith(word.lower())]
        if not found:
            raise StateError(f"unknown command {word!r}; type help")
        if len(found) > 1:
            raise StateError(f"ambiguous: {word!r} could be {', '.join(found)}")
        return found[0]

    def dispatch(self, name: str, words: list[str]) -> None:
        if name == "help":
            self.help(words)
        elif name == "why":
            self.why()
        elif name == "division":
            if len(words) != 1:
                raise StateError("division NAME")
            self.division = ev.load(self.path).division(words[0]).name
        elif name == "players":
            self.players()
        elif name == "enter":
            self.results(int(words[0]) if words and words[0].isdigit() else None)
        else:
            self.verb(name, words)

    def verb(self, name: str, words: list[str]) -> None:
        parser = _VerbParser(prog=name, description=VERBS[name][2], exit_on_error=False, add_help=True)
        _verb_parser(parser, name)
        try:
            args = parser.parse_args(words)
        except SystemExit:  # --help, or argparse's own usage message
            return
        except argparse.ArgumentError as exc:
            raise StateError(f"{name}: {exc}") from None
        args.event = self.path
        args.division = args.division or self.division
        handler: Handler = args.verb_handler
        if name in ("result", "correct"):
            self.confirmed(lambda yes: handler(argparse.Namespace(**{**vars(args), "yes": args.yes or yes})))
        else:
            handler(args)

    def confirmed(self, enter: Callable[[bool], object]) -> None:
        """Run an entry; a suspicious score is asked about and entered only on yes (tsh's warning)."""
        from tmanager.event_scored import SuspiciousScore

        try:
            enter(False)
        except SuspiciousScore as exc:
            try:
                answer = input(f"the score {exc.score} looks mistyped; enter it anyway? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() in ("y", "yes"):
                enter(True)
            else:
                self.say("not entered")

    def results(self, round_number: int | None) -> None:
        """The modal result entry: one result per line until an empty line."""
        rules = ev.load(self.path).division(self.division).scored
        if rules is not None:
            from tmanager.event_scored import FORMS

            print(f"result entry: {FORMS[rules.entry]} (forfeits: BOARD +-); empty line to leave")
        else:
            print("result entry: `BOARD RESULT` or `P1 P2 RESULT` (1-0 0-1 = +- -+ -- adj); empty line to leave")
        while True:
            try:
                line = input(self.prompt("results"))
            except EOFError:
                return
            words = shlex.split(line) if line.strip() else []
            if not words or words[0] in (".", "end", "q"):
                return
            if words[0] in ("missing", "m"):
                self.verb("missing", [])
                continue

            def save(yes: bool, words: list[str] = words) -> None:
                for message in save_result(
                    self.path, self.division, words, round_number, correction=False, confirm=yes
                ):
                    self.say(message)

            try:
                self.confirmed(save)
            except TManagerError as exc:
                self.say(f"error: {exc}")

    def players(self) -> None:
        e = ev.load(self.path)
        d = e.division(self.division)
        ranks = d.ranks()
        points = ev.scores(e, d)
        rows = [
            [
                str(p.number),
                p.name,
                str(p.rating or ""),
                str(ranks[p.number]),
                ev.format_points(points[p.number]),
                p.status,
            ]
            for p in sorted(d.players, key=lambda p: p.number)
        ]
        _table(["No", "Name", "Rtg", "Rank", "Pts", "Status"], rows, left={1, 5})

    def help(self, words: list[str]) -> None:
        if words and words[0].startswith("mess"):
            for key, text in MESSAGES.items():
                print(f"  {key!r}: {text}")
            return
        if words:
            name = self.resolve(words[0])
            if name in VERBS:
                self.verb(name, ["--help"])
            else:
                print(f"{name}: {SHELL_ONLY[name]}")
            return
        print("commands (any unique abbreviation; players by number or part of the name):")
        for verb in _SHELL_VERBS:
            print(f"  {verb:12} {VERBS[verb][2]}")
        for name, text in SHELL_ONLY.items():
            print(f"  {name:12} {text}")
        print("`help COMMAND` for its options, `help messages` for every message, `why` for the last one")

    def why(self) -> None:
        for key, text in MESSAGES.items():
            if key.replace("N", "") in self.last or (key == "matches N players" and " players (" in self.last):
                print(text)
                return
        print("no explanation for the last message" if self.last else "no message yet")
