"""Pair the next round of a TRF file (FIDE Dutch or Berger round robin), JaVaFo/bbpPairings style.

With ``-p`` the pairing of the round after the last one in the file is written
to OUTPUT (or standard output): first the number of boards, then one
``white black`` line per board by starting rank, and ``id 0`` for the player
who gets the pairing-allocated bye. With ``-c`` every round of the file is
paired again from the rounds before it and each difference is reported.

Exit status: 0 done (also when the checker finds differences), 1 no valid
pairing exists, 3 invalid input, 5 the file cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tmanager.errors import ConfigError, PairingError, ScheduleError
from tmanager.files import atomic_write
from tmanager.formats import trf
from tmanager.pairing import pair_round, round_robin
from tmanager.pairing.model import Game, Pairing, PlayerState

EXAMPLES = """\
  tmanager pair --dutch tournament.trf -p           # next round to standard output
  tmanager pair --dutch tournament.trf -p next.txt  # ... to a file
  tmanager pair --dutch tournament.trf -c           # re-pair every round, report differences
  tmanager pair --berger roundrobin.trf -p          # next round of a round robin (Berger tables)
"""

NO_PAIRING = 1
INVALID_INPUT = 3
UNREADABLE = 5


def configure(parser: argparse.ArgumentParser) -> None:
    system = parser.add_mutually_exclusive_group(required=True)
    system.add_argument("--dutch", action="store_true", help="FIDE Dutch system (C.04.3)")
    system.add_argument("--berger", action="store_true", help="round robin by the Berger tables (C.05 Annex 1)")
    parser.add_argument("input", type=Path, help="TRF-16 / TRF-2026 file")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "-p", dest="output", nargs="?", const="-", metavar="OUTPUT", help="pair the next round into OUTPUT"
    )
    action.add_argument("-c", dest="check", action="store_true", help="check every round of the file")


def command(args: argparse.Namespace) -> int:
    try:
        tournament = trf.read(args.input)
    except OSError as exc:
        return _fail(f"{args.input}: cannot read the file ({exc.strerror})", UNREADABLE)
    except ConfigError as exc:
        return _fail(str(exc), INVALID_INPUT)
    try:
        if args.check:
            _check(tournament, args.input, berger=args.berger)
            return 0
        if tournament.total_rounds is None and not args.berger:
            raise ConfigError("no number of rounds", file=args.input, hint="add `142 n` (or `XXR n`)")
        pairing = _pair(tournament, tournament.played_rounds + 1, berger=args.berger)
    except PairingError as exc:
        return _fail(f"{args.input}: {exc}", NO_PAIRING)
    except (ConfigError, ScheduleError) as exc:
        return _fail(str(exc), INVALID_INPUT)
    text = format_pairing(pairing)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            atomic_write(Path(args.output), text)
        except OSError as exc:
            return _fail(f"{args.output}: cannot write the file ({exc.strerror})", UNREADABLE)
    return 0


def _fail(message: str, status: int) -> int:
    print(f"tmanager: {message}", file=sys.stderr)
    return status


def format_pairing(pairing: Pairing) -> str:
    """The JaVaFo output: number of lines, then ``white black``, then ``bye 0``."""
    lines = [f"{white} {black}" for white, black in pairing.boards]
    if pairing.bye is not None:
        lines.append(f"{pairing.bye} 0")
    return "\n".join([str(len(lines)), *lines]) + "\n"


def _pair(
    tournament: trf.Tournament,
    round_number: int,
    *,
    berger: bool,
    states: list[PlayerState] | None = None,
    total_rounds: int | None = None,
) -> Pairing:
    if berger:
        count = max((p.id for p in tournament.players), default=0)
        per_cycle = count - 1 + count % 2
        total = tournament.total_rounds or per_cycle
        return round_robin(count, round_number, cycles=max(1, -(-total // max(per_cycle, 1))))
    return pair_round(
        states if states is not None else tournament.states(),
        round_number=round_number,
        total_rounds=total_rounds or tournament.total_rounds or round_number,
        forbidden=tournament.forbidden,
        points=tournament.points,
        initial_colour=tournament.first_colour(),
    )


def _round_view(tournament: trf.Tournament, round_number: int) -> tuple[list[PlayerState], Pairing]:
    """The players as they were before ``round_number``, and the pairing the file has for it."""
    states = []
    boards = []
    bye = None
    for rank, p in enumerate(tournament.ranked(), 1):
        games = p.games[: round_number - 1]
        games += (Game(None, None, "Z"),) * (round_number - 1 - len(games))
        entry = p.games[round_number - 1] if len(p.games) >= round_number else Game(None, None, " ")
        if not entry.paired:
            games += (entry,)  # absent: not paired this round
        elif entry.opponent is None:
            bye = p.id
        elif entry.colour != "b":
            boards.append((p.id, entry.opponent))
        states.append(
            PlayerState(id=p.id, games=games, rating=p.rating, rank=rank if tournament.by_rank else None,
                        acceleration=tournament.acceleration(p.id, round_number))
        )  # fmt: skip
    return states, Pairing(tuple(boards), bye)


def _check(tournament: trf.Tournament, path: Path, *, berger: bool) -> None:
    """Print, round by round, how the file's pairings differ from ours."""
    name = path.stem
    played = tournament.played_rounds
    for round_number in range(1, played + 1):
        print(f"{name}: Round #{round_number}")
        states, actual = _round_view(tournament, round_number)
        try:
            ours = _pair(
                tournament, round_number, berger=berger, states=states, total_rounds=tournament.total_rounds or played
            )
        except PairingError as exc:
            print(f"  no valid pairing: {exc}")
            continue
        if berger:
            present = {s.id for s in states if len(s.games) < round_number}
            ours = Pairing(tuple(b for b in ours.boards if set(b) <= present), ours.bye)
        for board in sorted(set(ours.boards) - set(actual.boards)):
            print(f"  expected {board[0]} {board[1]}, file has not")
        for board in sorted(set(actual.boards) - set(ours.boards)):
            print(f"  file has {board[0]} {board[1]}, not expected")
        if ours.bye != actual.bye:
            print(f"  bye: expected {ours.bye or 'none'}, file has {actual.bye or 'none'}")
