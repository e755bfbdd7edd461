"""Pair the next round of a TRF file (FIDE Dutch, Double-Swiss or Berger round robin), JaVaFo/bbpPairings style.

With ``-p`` the pairing of the round after the last one in the file is written
to OUTPUT (or standard output): first the number of boards, then one
``white black`` line per board by starting rank, and ``id 0`` for the player
who gets the pairing-allocated bye. With ``-c`` every round of the file is
paired again from the rounds before it and each difference is reported.

A Double-Swiss file holds each match as two TRF rounds, game 1 first (``XXR``
counts TRF rounds, twice the matches); its boards are game 1's colours. With
``-g`` a random Double-Swiss tournament is paired and played and written as
such a file, for ``-c`` here or in another program; its ``XXR`` is the matches
really paired (fewer than ``--rounds`` when the field runs out of pairings). ``--explain`` prints why
each pair and colour of a ``-p`` pairing was chosen, in the system's own terms
(C.04.3's brackets, criteria and colour rules; the Berger table's round and
board; C.04.5's articles), to standard error.

Exit status: 0 done (also when the checker finds differences), 1 no valid
pairing exists, 3 invalid input, 5 a file cannot be read or written.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

from tmanager.core.results import TrfResult
from tmanager.core.scoring import STANDARD, Game
from tmanager.errors import ConfigError, PairingError, ScheduleError, TManagerError, printable
from tmanager.files import atomic_write, check_writable, same_file
from tmanager.formats import trf
from tmanager.pairing import explain_round, explain_round_robin, pair_round, round_robin
from tmanager.pairing.doubleswiss import pair_double_swiss
from tmanager.pairing.model import Pairing, PlayerState
from tmanager.pairing.verification import check_double_swiss, random_double_swiss

EXAMPLES = """\
  tmanager pair --dutch tournament.trf -p           # next round to standard output
  tmanager pair --dutch tournament.trf -p next.txt  # ... to a file
  tmanager pair --dutch tournament.trf -c           # re-pair every round, report differences
  tmanager pair --dutch tournament.trf -p --explain # ... and why each pair, bye and colour (standard error)
  tmanager pair --berger roundrobin.trf -p          # next round of a round robin (Berger tables)
  tmanager pair --double-swiss -g random.trf --players 40 --rounds 7 --seed 1   # a random tournament
  tmanager pair --double-swiss random.trf -c        # check it (or another program's file)
  tmanager pair --double-swiss open.trf -p --explain  # next match, and why each pair and colour
"""

NO_PAIRING = 1
INVALID_INPUT = 3
UNREADABLE = 5


def configure(parser: argparse.ArgumentParser) -> None:
    system = parser.add_mutually_exclusive_group(required=True)
    system.add_argument("--dutch", action="store_true", help="FIDE Dutch system (C.04.3)")
    system.add_argument("--berger", action="store_true", help="round robin by the Berger tables (C.05 Annex 1)")
    system.add_argument(
        "--double-swiss", action="store_true", help="FIDE Double-Swiss (C.04.5): two TRF rounds per match"
    )
    parser.add_argument("input", type=Path, nargs="?", help="TRF-16 / TRF-2026 file (not with -g)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument(
        "-p", dest="output", nargs="?", const="-", metavar="OUTPUT", help="pair the next round into OUTPUT"
    )
    action.add_argument("-c", dest="check", action="store_true", help="check every round of the file")
    action.add_argument(
        "-g", dest="generate", type=Path, metavar="OUTPUT", help="Double-Swiss: write a random tournament to OUTPUT"
    )
    parser.add_argument("--explain", action="store_true", help="with -p: why each pair and colour (standard error)")
    parser.add_argument("--players", type=int, default=30, help="with -g: number of players")
    parser.add_argument("--rounds", type=int, default=7, help="with -g: number of matches")
    parser.add_argument("--seed", type=int, help="with -g: seed of the random numbers, to repeat a tournament")


def command(args: argparse.Namespace) -> int:
    # Callers that build the namespace themselves (tests, scripts) may leave out the Double-Swiss options.
    double_swiss, explain = getattr(args, "double_swiss", False), getattr(args, "explain", False)
    if getattr(args, "generate", None) is not None:
        return _generate(args)
    if args.input is None:
        return _fail("INPUT: no TRF file given (name the file to pair or check: tmanager pair --dutch t.trf -p)",
                     INVALID_INPUT)
    if explain and not args.output:
        return _fail("--explain: goes with -p, the pairing it explains (add -p, or leave --explain out)", INVALID_INPUT)
    refused = _refused_output(args.output, args.input)
    if refused is not None:
        return refused
    try:
        text = trf.read_text(args.input)
    except ConfigError as exc:  # missing, unreadable, a directory, a FIFO, a device...
        return _fail(str(exc), UNREADABLE)
    try:
        tournament = trf.parse(text, file=args.input)
    except ConfigError as exc:
        return _fail(str(exc), INVALID_INPUT)
    try:
        if double_swiss:
            if args.check:
                _check_double_swiss(tournament, args.input)
                return 0
            pairing = _pair_double_swiss(tournament, args.input, explain=explain)
        elif args.check:
            _check_rounds(tournament, args.input, pairing=False)
            _check_berger_ranks(tournament, args.input, berger=args.berger)
            _check(tournament, args.input, berger=args.berger)
            return 0
        else:
            if tournament.total_rounds is None and not args.berger:
                raise ConfigError("no number of rounds", file=args.input, hint="add `142 n` (or `XXR n`)")
            _check_rounds(tournament, args.input, pairing=True)
            _check_berger_ranks(tournament, args.input, berger=args.berger)
            pairing = _pair(tournament, tournament.played_rounds + 1, berger=args.berger, explain=explain)
    except PairingError as exc:
        return _fail(f"{args.input}: {exc}{'' if double_swiss else _UNPAIRABLE}", NO_PAIRING)
    except (ConfigError, ScheduleError) as exc:
        return _fail(str(exc), INVALID_INPUT)
    text = format_pairing(pairing)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            atomic_write(Path(args.output), text)
        except TManagerError as exc:  # a device, a directory, a full disk...
            return _fail(str(exc), UNREADABLE)
    return 0


#: The way out of the Dutch system's refusal (a round robin always pairs; the Double-Swiss says its own).
_UNPAIRABLE = " (no rematch, no second bye, no absolute colour preference broken: pair the round by hand)"


def _refused_output(output: str | None, source: Path) -> int | None:
    """-p OUTPUT looked at before anything is paired: the TRF read, named there by a slip, was replaced by the
    pairing (the tournament's file lost); a directory, or a missing one, was said only after the pairing, as the
    disk's fault. The exit status, or ``None`` to go on."""
    if output is None or output == "-":
        return None
    if same_file(Path(output), source):
        return _fail(f"-p: {output!r} is the TRF file read (give the pairing a file of its own)", INVALID_INPUT)
    try:
        check_writable(Path(output), field="-p")
    except ConfigError as exc:
        return _fail(str(exc), UNREADABLE)
    return None


def _check_rounds(tournament: trf.Tournament, path: Path, *, pairing: bool) -> None:
    """Refuse, as bbpPairings does, a file with more rounds than its XXR, or, to pair one more, as many: the
    round after the last was paired (and the rounds checked) as if the tournament went on, its last-round rules
    at the wrong round, without a word."""
    total, played = tournament.total_rounds, tournament.played_rounds
    if total is None or played < total or (played == total and not pairing):
        return
    if played == total:
        raise ConfigError(f"all {total} rounds are paired", file=path, field="XXR",
                          hint="raise XXR (or 142) to pair another round")
    raise ConfigError(f"the file has {played} rounds, more than the {total} of XXR", file=path, field="XXR",
                      hint="set XXR (or 142) to the rounds planned")


def _check_berger_ranks(tournament: trf.Tournament, path: Path, *, berger: bool) -> None:
    """A Berger table pairs starting ranks 1 to N, the highest: a rank without a player line was paired as a
    player (players 1 and 5 alone gave boards 2-5 and 3-4). bbpPairings refuses such a file ('A pairing number
    is missing')."""
    present = {p.id for p in tournament.players}
    missing = sorted(set(range(1, max(present, default=0) + 1)) - present)
    if berger and missing:
        shown = ", ".join(map(str, missing[:10])) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        ranks = "rank" if len(missing) == 1 else "ranks"
        raise ConfigError(f"no player line for starting {ranks} {shown}", file=path, field="001 lines",
                          hint="a Berger table pairs starting ranks 1 to N: number the players without a gap")


def _fail(message: str, status: int) -> int:
    print(f"tmanager: {printable(message)}", file=sys.stderr)
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
    explain: bool = False,
) -> Pairing:
    """Pair ``round_number``; with ``explain``, say why on standard error."""
    if berger:
        count = max((p.id for p in tournament.players), default=0)
        per_cycle = count - 1 + count % 2
        total = tournament.total_rounds or per_cycle
        cycles = max(1, -(-total // max(per_cycle, 1)))
        if not explain:
            return round_robin(count, round_number, cycles=cycles)
        table = explain_round_robin(count, round_number, cycles=cycles)
        print("\n".join(table.lines()), file=sys.stderr)
        return table.pairing
    settings: dict[str, Any] = {  # the same for the pairing and its explanation
        "round_number": round_number,
        "total_rounds": total_rounds or tournament.total_rounds or round_number,
        "forbidden": tournament.forbidden,
        "points": tournament.points,
        "initial_colour": tournament.first_colour(),
    }
    players = states if states is not None else tournament.states()
    if not explain:
        return pair_round(players, **settings)
    explained = explain_round(players, **settings)
    print("\n".join(explained.lines()), file=sys.stderr)
    return explained.pairing


def _round_view(tournament: trf.Tournament, round_number: int) -> tuple[list[PlayerState], Pairing]:
    """The players as they were before ``round_number``, and the pairing the file has for it."""
    states = []
    boards = []
    bye = None
    for rank, p in enumerate(tournament.ranked(), 1):
        games = p.games[: round_number - 1]
        games += (Game(None, None, TrfResult.ZERO_BYE),) * (round_number - 1 - len(games))
        entry = p.games[round_number - 1] if len(p.games) >= round_number else Game(None, None, TrfResult.NOT_PLAYED)
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


# -- the Double-Swiss: two TRF rounds per match --------------------------------------------------------


def _matches(tournament: trf.Tournament, path: Path) -> int:
    """The number of matches: half of ``XXR``."""
    if tournament.total_rounds is None or tournament.total_rounds % 2:
        raise ConfigError(
            "a Double-Swiss file needs XXR with twice the number of matches", file=path, hint="add e.g. `XXR 14`"
        )
    _check_rounds(tournament, path, pairing=False)  # -p says itself when all matches are paired
    return tournament.total_rounds // 2


def _pair_double_swiss(tournament: trf.Tournament, path: Path, *, explain: bool) -> Pairing:
    """The next match; its explanation on standard error with ``explain``."""
    matches = _matches(tournament, path)
    played = tournament.played_rounds
    if played % 2:
        raise ConfigError(f"round {played} is game 1 of a match whose game 2 is missing", file=path,
                          hint=f"enter game 2 as round {played + 1}, each pair with the colours reversed")
    if played // 2 >= matches:
        raise PairingError(f"all {matches} matches are paired (XXR {2 * matches})")
    result = pair_double_swiss(
        tournament.states(),
        round_number=played // 2 + 1,
        total_rounds=matches,
        forbidden=tournament.forbidden,
        points=tournament.points,
        initial_colour=tournament.first_colour(),
    )
    if explain:
        print("\n".join(result.explanation), file=sys.stderr)
    return result.pairing


def _check_double_swiss(tournament: trf.Tournament, path: Path) -> None:
    """Print, match by match, how the file's pairings differ from ours."""
    differences = check_double_swiss(
        tournament.states(),
        matches=_matches(tournament, path),
        forbidden=tournament.forbidden,
        points=tournament.points,
        initial_colour=tournament.first_colour(),
    )
    for match in range(1, tournament.played_rounds // 2 + 1):
        print(f"{path.stem}: Match #{match}")
        for d in differences:
            if d.match == match:
                print(f"  {d.text}")
    print(f"{len(differences)} difference(s)")


def _generate(args: argparse.Namespace) -> int:
    """``-g``: a random Double-Swiss tournament, written as a TRF with two rounds per match."""
    if not args.double_swiss:
        return _fail("-g: generates Double-Swiss tournaments only (add --double-swiss)", INVALID_INPUT)
    if not 2 <= args.players <= trf.MAX_START_RANK:  # a starting rank has four columns: 10000 shifted its line
        return _fail(f"--players: {args.players} players, not 2 to {trf.MAX_START_RANK} (a TRF numbers them in four "
                     "columns; e.g. --players 30)", INVALID_INPUT)
    if args.rounds < 1:
        return _fail(f"--rounds: {args.rounds} matches, not 1 or more (e.g. --rounds 7)", INVALID_INPUT)
    try:  # before the tournament is made: a large one takes a while
        check_writable(args.generate, field="-g")
    except ConfigError as exc:
        return _fail(str(exc), UNREADABLE)
    rng = random.Random(args.seed)
    states = random_double_swiss(args.players, args.rounds, rng)
    # XXR is the rounds the file's tournament was paired for: the matches the field could be paired for, which
    # are fewer than asked when it ran out (the generator pairs those again with the last one as the last).
    matches = max((len(s.games) for s in states), default=0) // 2
    short = f"; {args.rounds} asked, the field ran out of pairings" if matches < args.rounds else ""
    tournament = trf.Tournament(
        players=tuple(
            trf.TrfPlayer(
                id=s.id,
                header=f"001 {s.id:4d}      {f'Player {s.id:04d}':<33} {s.rating:4d}",
                points=sum(STANDARD.points(g) for g in s.games),
                rank=None,
                games=s.games,
            )
            for s in states
        ),
        lines=(
            "012 Random Double-Swiss",
            f"### tmanager pair --double-swiss -g, {args.players} players, seed {args.seed}, {matches} matches{short}",
            f"XXR {2 * matches}",
        ),
    )
    try:
        trf.write(args.generate, tournament)
    except TManagerError as exc:
        return _fail(str(exc), UNREADABLE)
    print(f"wrote {args.generate}: {args.players} players, {matches} match(es) of 2 games (XXR {2 * matches}){short}")
    return 0
