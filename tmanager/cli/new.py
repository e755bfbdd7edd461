"""Create a tourney file from the command line, as XBoard's Match Options dialog does.

Participants are given in playing order with -e: engine definitions (see
`engines/`), where `-e DEF:NAME` gives one a name of its own, so one definition
can play under several names; or engines named by their program, a path
(`-e /usr/games/stockfish`, named after the file) or fastchess's keys
(`-e cmd=./dev,name=dev,proto=uci,dir=D,args="a b"`). Engine options and
settings per participant come with --option NAME:KEY=VALUE and --each
KEY=VALUE, as fastchess's -engine and -each.
Any other setting can be given with --set SECTION.FIELD=VALUE (a participant's
as participants.NAME.FIELD). The opening book is read and checked. Nothing is
written if anything is wrong.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tmanager.cli._dispatch import words
from tmanager.cli._engines import participant
from tmanager.cli._settings import add_participant_arguments, note_shared_pgn, ordered_assignments
from tmanager.core.spsa import Opponent, TuneSettings, parse_input
from tmanager.core.stats import SprtModel, SprtSettings
from tmanager.errors import ConfigError
from tmanager.files import read_text
from tmanager.tourney import store, tunecheck
from tmanager.tourney.editing import apply_setting
from tmanager.tourney.gamesetup import load_book
from tmanager.tourney.model import SWISS_TYPES, Settings, Tourney, TourneyType

EXAMPLES = """\
  tmanager new match.toml -e /usr/games/stockfish -e cmd=./build/dev,name=dev,args="--bench 0" --nodes 5000
  tmanager new rr.toml -e stockfish -e fairymax -e greedy-uci -e random-xboard --tc 10+0.1
  tmanager new gauntlet.toml --type gauntlet --seeds 1 -e stockfish:SF-dev -e fairymax -e greedy-uci \\
      --games 2 --cycles 10 --nodes 5000 --openings tourneys/openings/sample.epd
  tmanager new swiss.toml --type swiss --rounds 5 -e stockfish:SF -e fairymax -e greedy-uci -e random-uci \\
      -e greedy-xboard -e random-xboard --games 2 --tc 10+0.1
  tmanager new match.toml -e stockfish:A -e stockfish:B --tc 40/60+0.6 --set adjudication.max_moves=200
  tmanager new sf.toml -e stockfish:base -e stockfish:dev --option dev:Hash=64 --each option.Threads=1 \\
      --each tc=10+0.1 --each time_margin=0.05
  tmanager new sprt.toml -e stockfish:dev -e stockfish:base --tc 10+0.1 --games 2 --cycles 5000 \\
      --openings tourneys/openings/sample.epd --sprt 0 5 0.05 0.05     # stops when the test decides
  tmanager new tune.toml -e stockfish:plus -e stockfish:minus --tc 10+0.1 --openings tourneys/openings/sample.epd \\
      --spsa params.txt --iterations 2000      # params.txt: OpenBench's lines, name, int, start, min, max, c_end, r_end
  tmanager new tune.toml -e stockfish:dev -e stockfish:base --tc 10+0.1 --openings tourneys/openings/sample.epd \\
      --spsa params.txt --iterations 1000 --spsa-base    # dev's options tuned against base, 4 games a step
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="the tourney file to create (.toml)")
    parser.add_argument(
        "-e", "--engine", action="append", default=[], metavar="DEF[:NAME]",
        help="a participant (repeat, in order): an engine definition, an engine's path (/usr/games/stockfish), "
        'or fastchess\'s keys: cmd=PATH,name=NAME[,proto=uci|xboard][,dir=DIR][,args="A B"]',
    )
    parser.add_argument("--name", help="the tourney's name (default: the file name)")
    parser.add_argument(
        "--type", choices=words(TourneyType), default=TourneyType.ROUND_ROBIN.value,
        help="the schedule: everyone against everyone, the seeds against the rest, or Swiss rounds",
    )
    parser.add_argument("--seeds", type=int, help="gauntlet: the first N participants play all others (default: 1)")
    parser.add_argument("--rounds", type=int, help="swiss, double-swiss: rounds per cycle (1 to participants - 1)")
    parser.add_argument("--cycles", type=int, default=1, help="complete repetitions of the schedule")
    parser.add_argument("--games", type=int, default=2, help="games per pairing")
    parser.add_argument("--tc", default="inf", help='time control: "40/60+0.6", "10+0.1" or "inf"')
    parser.add_argument("--st", type=float, help="fixed seconds per move")
    parser.add_argument("--nodes", type=int, help="nodes per move")
    parser.add_argument("--depth", type=int, help="depth per move")
    parser.add_argument("--pgn", default="", help="PGN file, relative to the tourney file (default: FILE.pgn)")
    parser.add_argument(
        "--sync-after-round", action="store_true", help="no game of a round starts before the round before it is over"
    )
    parser.add_argument(
        "--sync-after-cycle", action="store_true", help="no game of a cycle starts before the cycle before it is over"
    )
    parser.add_argument("--after-game", default="", help="shell command run after every game")
    parser.add_argument("--after-tourney", default="", help="shell command run once, after the last game")
    parser.add_argument("--openings", help="EPD or PGN opening book, relative to the tourney file")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="any other setting")
    parser.add_argument(
        "--sprt", nargs=4, type=float, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="two participants: an SPRT of the first against the second, H0 elo0 against H1 elo1; "
        "the tourney stops once it decides",
    )
    parser.add_argument(
        "--sprt-model", choices=words(SprtModel),
        help="with --sprt: what the SPRT's bounds mean: normalized (nElo), logistic or bayesian Elo "
        "(default: normalized)",
    )
    parser.add_argument(
        "--spsa", type=Path, metavar="PARAMS",
        help="two participants, the engine twice: an SPSA tune of the options in PARAMS (OpenBench's lines "
        "'name, int|float, start, min, max, c_end, r_end', or fishtest's without the type); "
        "--set spsa.alpha=, spsa.gamma=, spsa.a_ratio=, spsa.seed=, spsa.history_every= for the rest",
    )
    parser.add_argument("--iterations", type=int, help="with --spsa: the tune's length in game pairs")
    parser.add_argument(
        "--spsa-base", action="store_true",
        help="with --spsa: the second participant is a fixed base (another engine, or the engine with its own "
        "options), played by theta+c*delta then theta-c*delta in a colour-reversed pair each: 4 games a step "
        "(spsa.opponent=base)",
    )
    add_participant_arguments(parser)
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def command(args: argparse.Namespace) -> int:
    path: Path = args.file.resolve()
    if not args.engine:
        raise ConfigError("no participants", field="--engine", hint="give at least two: -e stockfish -e fairymax")
    kind = TourneyType(args.type)
    if args.seeds is not None and kind is not TourneyType.GAUNTLET:  # it would be kept, and play no part
        raise ConfigError(f"only a gauntlet has seeds, not a {args.type}", field="--seeds",
                          hint="add --type gauntlet, or leave --seeds out")
    if args.rounds is not None and kind not in SWISS_TYPES:  # as --seeds
        raise ConfigError(f"only a Swiss tourney has rounds, not a {args.type}", field="--rounds",
                          hint="add --type swiss, or leave --rounds out")
    participants = [participant(item) for item in args.engine]
    settings = Settings(
        name=args.name or path.stem,
        type=kind,
        gauntlet_seeds=1 if args.seeds is None else args.seeds,
        swiss_rounds=0 if args.rounds is None else args.rounds,
        cycles=args.cycles,
        games_per_pairing=args.games,
        tc=args.tc,
        st=args.st,
        nodes=args.nodes,
        depth=args.depth,
        pgn=args.pgn or path.with_suffix(".pgn").name,
        sync_after_round=args.sync_after_round,
        sync_after_cycle=args.sync_after_cycle,
        after_game=args.after_game,
        after_tourney=args.after_tourney,
    )
    tourney = Tourney(path=path, settings=settings, participants=participants)
    if args.sprt:
        elo0, elo1, alpha, beta = args.sprt
        tourney.sprt = SprtSettings(elo0, elo1, alpha, beta, SprtModel(args.sprt_model or SprtModel.NORMALIZED))
    elif args.sprt_model is not None:  # it would be dropped, and the tourney played without a test
        raise ConfigError("tests nothing without --sprt", field="--sprt-model",  # as crosstable says it
                          hint="add --sprt ELO0 ELO1 ALPHA BETA, e.g. --sprt 0 5 0.05 0.05")
    if args.spsa or args.iterations is not None or args.spsa_base:
        tourney.spsa = _tune(args.spsa, args.iterations, base=args.spsa_base)
    if args.openings:
        apply_setting(tourney, "openings.file", args.openings)
    assignments = ordered_assignments(args, [p.name for p in participants])
    for key, value in assignments.pairs:
        apply_setting(tourney, key, value)
    try:
        tourney.validate(engines=True)
        tunecheck.check_options(tourney)  # a tune's engines are started once: do they have its options?
    except ConfigError as exc:
        # The new file is not written yet: its errors name their field alone. Another file's (an engine definition
        # that is a FIFO, or has no cmd) keep its name, without which the line said neither what nor where.
        other = exc.file if exc.file is not None and Path(exc.file) != path else None
        raise exc.relocated(file=other, field=exc.field) from None
    load_book(tourney)  # a bad line is reported now (of a large book: in its first opening)
    store.write_new(tourney, overwrite=args.force)
    assignments.say_notes()
    note_shared_pgn(tourney.pgn_path)
    print(f"{path}: {len(participants)} participants, {tourney.schedule().total_games} games")
    return 0


def _tune(params: Path | None, iterations: int | None, *, base: bool) -> TuneSettings:
    """``[spsa]`` from --spsa's file, --iterations and --spsa-base; the rest at fishtest's and OpenBench's
    defaults."""
    if params is None:
        given = "--spsa-base" if base else "--iterations"
        raise ConfigError(f"{given} without --spsa", field="--spsa", hint="the file of the parameters to tune")
    if iterations is None:
        raise ConfigError("--spsa without --iterations", field="--iterations", hint="the tune's length in game pairs")
    text = read_text(params, kind="parameters", create=None)
    try:
        parse_input(text)
    except ConfigError as exc:
        raise exc.located(file=params) from None
    opponent = Opponent.BASE if base else Opponent.MIRROR
    return TuneSettings(parameters=text.strip() + "\n", iterations=iterations, opponent=opponent)
