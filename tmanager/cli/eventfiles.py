"""``tmanager event`` verbs that exchange an event with other programs' files: TRF-2026 and TRF-16 (export-trf,
import-trf), AUPAIR ``.TOU`` (export-tou) and tsh ``.t`` (export-t, import-t).

The verbs join the verb table of :mod:`tmanager.cli.event` (:data:`VERBS`); the file modules are imported when a
verb runs. See docs/events.md.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.cli.eventverbs import Verb, check_export, load_division, with_settings
from tmanager.errors import ConfigError, StateError
from tmanager.events import journal
from tmanager.events.model import Division, EntryMode, Event, PairingSystem, ScoredSettings
from tmanager.events.rules import default_system, rules_for
from tmanager.events.rules.scored import DIVISION_SYSTEMS
from tmanager.formats.trf import MAX_ROUND
from tmanager.formats.trf import Version as TrfVersion


def _configure_output(p: argparse.ArgumentParser) -> None:
    p.add_argument("output", type=Path, help="the file to write")


def _configure_export_trf(p: argparse.ArgumentParser) -> None:
    p.add_argument("output", type=Path, help="the file to write")
    p.add_argument(
        "--version", choices=words(TrfVersion), default=TrfVersion.TRF_2026.value,
        help="TRF-2026 (from 2025-09-01) or TRF-16",
    )


def _export_trf(args: argparse.Namespace) -> int:
    from tmanager.events import trffile
    from tmanager.files import atomic_write

    e, d = load_division(args)
    check_export(args)
    atomic_write(args.output, trffile.dumps(e, d, version=TrfVersion(args.version)))  # refuses a score-based division
    complete = trffile.complete_rounds(d)
    note = f"; round {complete + 1} is in progress: its pairing is in XTM lines" if complete < d.paired_rounds else ""
    print(f"wrote {args.output} (TRF-{args.version}): {len(d.players)} players, {complete} complete round(s){note}")
    if not e.total_rounds(d):  # a Swiss paired without planned rounds: nothing said it, the file had no 142/XXR
        print(f"warning: {args.event}: event.rounds: the event plans no number of rounds, so the TRF has no "
              f"{'142' if args.version == TrfVersion.TRF_2026.value else 'XXR'} line, which pairing programs and "
              f"rating officers read (tmanager event set {args.event} rounds=N)",
              file=sys.stderr)  # fmt: skip
    dated = len(e.schedule)
    if dated < d.paired_rounds:  # FIDE's rating server takes a rated event's round dates from the 132 line
        which = "no round dates" if not dated else f"dates for {dated} of the {d.paired_rounds} rounds paired"
        print(f"warning: {args.event}: event.schedule: {which}, so the TRF's 132 line misses rounds a rating officer "
              f"needs (tmanager event set {args.event} \"schedule=YYYY-MM-DD HH:MM,…\", round 1 first)",
              file=sys.stderr)  # fmt: skip
    return 0


def _configure_input(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, help="the file to read")


def _import_trf(args: argparse.Namespace) -> int:
    from tmanager.events import trffile

    e = trffile.read(args.input)
    journal.create(args.event, e)
    d = e.divisions[0]
    print(f"created {args.event} from {args.input}: {len(d.players)} players, {d.paired_rounds} paired round(s)")
    return 0


def _configure_export_tou(p: argparse.ArgumentParser) -> None:
    p.add_argument("output", type=Path, help="the .TOU file to write, e.g. A.TOU")
    p.add_argument("--aliases", type=Path, help='TOML table of rating-list names: "Wiegand, Dave" = "David Wiegand"')
    p.add_argument("--letter", help="division letter of the *line (default: the division name's first letter)")
    p.add_argument("--date", help="date of the *M line, YYYY-MM-DD (default: the event's end or start)")


def _export_tou(args: argparse.Namespace) -> int:
    from tmanager.files import atomic_write, parse_toml, read_text
    from tmanager.formats import tou

    e, d = load_division(args)
    check_export(args)
    aliases: dict[str, str] = {}
    if args.aliases:
        aliases = parse_toml(read_text(args.aliases, kind="alias table", create=None), file=args.aliases)
        if not all(isinstance(v, str) for v in aliases.values()):
            raise ConfigError("every alias must be a string", file=args.aliases, hint='"Last, First" = "First Last"')
    date = args.date or e.end or e.start
    if not date:
        raise StateError("the event has no date for the *M line", field="--date",
                         hint=f"give --date YYYY-MM-DD, or tmanager event set {args.event} start=YYYY-MM-DD")
    try:  # the *M line's date, as rating officers read it: a whole day (not the year alone, not 2026-02-30)
        datetime.datetime.strptime(date, "%Y-%m-%d")
    except ValueError:
        raise ConfigError(f"{date!r} is not a day", field="--date", hint="write YYYY-MM-DD") from None
    letter = (args.letter or d.name[:1]).upper()
    if not (len(letter) == 1 and "A" <= letter <= "Z"):
        raise ConfigError(f"{letter!r} is not a division letter", field="--letter", hint="one letter, A to Z")
    players = rules_for(e, d).tou_players(aliases)
    atomic_write(args.output, tou.dumps(name=e.name, date=date, division=letter, players=players))
    print(f"wrote {args.output}: {len(d.players)} players, {d.paired_rounds} round(s)")
    return 0


def _export_t(args: argparse.Namespace) -> int:
    from tmanager.events import tshfile
    from tmanager.formats import tsh

    _, d = load_division(args)
    check_export(args)
    players = tshfile.to_t(d)  # refuses a chess division
    tsh.write(args.output, players)
    print(f"wrote {args.output}: {len(players)} players, {d.paired_rounds} round(s)")
    return 0


def _configure_import_t(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", type=Path, help="the tsh .t file to read")
    p.add_argument("--name", help="the event's name (default: the file's name)")
    p.add_argument("--rounds", type=int, help="planned rounds (default: the rounds in the file)")
    p.add_argument(
        "--entry", choices=words(EntryMode), default=EntryMode.SCORES.value, help="how results are entered from now on"
    )
    p.add_argument(
        "--system", choices=words(DIVISION_SYSTEMS), default=default_system(score_based=True),
        help="the division's pairing system",
    )
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a division setting, e.g. prize_bands=[1,2]"
    )


def _import_t(args: argparse.Namespace) -> int:
    from tmanager.events import tshfile
    from tmanager.formats import tsh

    players = tsh.read(args.input)
    settings = ScoredSettings(entry=EntryMode(args.entry), track_firsts=any(p.card.p12 for p in players))
    d = Division(args.division or args.input.stem, system=PairingSystem(args.system), scored=settings)
    # The settings come first: which p12 codes the boards' order gives depends on them.
    e = with_settings(Event(name=args.name or args.input.stem, rounds=args.rounds or 0, divisions=[d]), args.set,
                      args.event)  # fmt: skip
    d = e.divisions[0]
    tshfile.from_t(players, d, file=args.input)
    # Refused naming the option: the event file's check named the file still to be written ('x.toml: division
    # 'a': round 2 is paired but the event has 1 rounds').
    if args.rounds is not None and not (args.rounds == 0 or d.paired_rounds <= args.rounds <= MAX_ROUND):
        raise ConfigError(f"must be from {max(d.paired_rounds, 1)} (the rounds {args.input} holds) to {MAX_ROUND}, "
                          f"not {args.rounds}", field="--rounds",
                          hint="give the rounds planned, or leave --rounds out for the file's")  # fmt: skip
    e.rounds = args.rounds or d.paired_rounds
    journal.create(args.event, e)
    print(f"created {args.event} from {args.input}: {len(d.players)} players, {d.paired_rounds} paired round(s)")
    return 0


VERBS: dict[str, Verb] = {
    "export-trf": Verb(
        _configure_export_trf,
        _export_trf,
        "write a division as a FIDE TRF-2026 (or TRF-16) file (pairing programs check it; import-trf reads it back)",
        ("export-trf spring.toml spring.trf", "export-trf spring.toml spring16.trf --version 16"),
    ),
    "import-trf": Verb(
        _configure_input,
        _import_trf,
        "create an event file from a TRF file",
        ("import-trf spring-copy.toml spring.trf",),
        in_shell=False,
    ),
    "export-tou": Verb(
        _configure_export_tou,
        _export_tou,
        "write a division as an AUPAIR .TOU results file (white went first)",
        ("export-tou spring.toml A.TOU --aliases names.toml",),
    ),
    "export-t": Verb(
        _configure_output,
        _export_t,
        "score-based: write a division as a tsh .t file (import-t reads it back)",
        ("export-t scrabble.toml a.t",),
    ),
    "import-t": Verb(
        _configure_import_t,
        _import_t,
        "create a score-based event file from a tsh .t file",
        ("import-t scrabble.toml a.t --rounds 12 --set prize_bands=[1,2,3]",),
        in_shell=False,
    ),
}
