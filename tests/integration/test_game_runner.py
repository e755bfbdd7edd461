"""The game runner with real engine processes: faults, adjudication, clocks, process reaping."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import re
import time
from pathlib import Path

import chess
import chess.pgn
import psutil
import pytest

from tests.conftest import children_running, run_async
from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError
from tmanager.formats.pgn import Notation
from tmanager.tourney.adjudication import Adjudication
from tmanager.tourney.engine import STOP_GRACE, EnginePool
from tmanager.tourney.engines import EngineSpec, command_line, find_definition, load_definition
from tmanager.tourney.outcome import Repetitions, rules_outcome
from tmanager.tourney.play import GameRecord, GameSpec, play_game

pytestmark = pytest.mark.usefixtures("each_event_loop")


def spec(definition: str, name: str | None = None, **changes: object) -> EngineSpec:
    data = load_definition(find_definition(definition))
    engine = EngineSpec(
        name=name or definition,
        command=command_line(data["cmd"], data.get("args", [])),
        protocol=data["protocol"],
        options=data.get("options", {}),
        # Our engines answer at once, so a silent one is found in 2 s; Stockfish loads its network first,
        # which can take longer on a busy machine.
        handshake_timeout=10.0 if definition == "stockfish" else 2.0,
    )
    return dataclasses.replace(engine, **changes)  # type: ignore[arg-type]


def seeded(engine: EngineSpec, seed: int) -> EngineSpec:
    """One of our engines choosing with a seed: where a test counts plies, an unseeded one could find a mate
    by chance (1. e4 g5 2. d4 f6 3. Qh5#) and end its game early."""
    return dataclasses.replace(engine, command=(*engine.command, "--seed", str(seed)))


def play(white: EngineSpec, black: EngineSpec, tc: str = "10+0.1", **changes: object) -> GameRecord:
    limits = TimeControl.parse(tc)
    game = GameSpec(white=white, black=black, white_limits=limits, black_limits=limits, **changes)  # type: ignore[arg-type]
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    record = run_async(play_game(game))
    after = {p.pid for p in psutil.Process().children(recursive=True)} - before
    assert not after, "engine processes were left behind"
    return record


def moves_of(record: GameRecord) -> list[chess.Move]:
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and not game.errors
    return list(game.mainline_moves())


#: What each of pyengine's faults costs its engine, whichever protocol it speaks: the termination, the fault
#: counted, words of the reason.
FAULTS = {
    "crash-start": ("abandoned", "crash", "failed to start"),
    "crash-mid": ("abandoned", "crash", "engine crashed"),
    "illegal": ("rules infraction", "illegal move", "illegal or unreadable move"),
    "garbage": ("rules infraction", "illegal move", "illegal or unreadable move"),
    "null": ("rules infraction", "illegal move", "makes an illegal move (a null move)"),
    "stall": ("time forfeit", "time forfeit", "loses on time"),
    "slow": ("time forfeit", "time forfeit", "loses on time"),
}


@pytest.mark.parametrize(
    ("faulty", "termination", "fault", "reason"),
    [
        *((f"fault-{fault}", *costs) for fault, costs in FAULTS.items()),
        ("fault-no-handshake", "abandoned", "handshake", "did not finish its handshake"),
        ("fault-false-claim", "rules infraction", "false claim", "false result claim"),  # an XBoard engine
    ],
)
@pytest.mark.parametrize("faulty_color", [chess.WHITE, chess.BLACK])
def test_each_fault_costs_the_faulty_engine_the_game(
    faulty: str, termination: str, fault: str, reason: str, faulty_color: chess.Color
) -> None:
    bad, good = spec(faulty, "Bad"), spec("greedy-uci", "Good")
    # The fault strikes at Bad's second move, before any mate is possible: nothing can end the game first.
    bad = dataclasses.replace(bad, command=(*bad.command, "--after", "1"))
    white, black = (bad, good) if faulty_color == chess.WHITE else (good, bad)
    record = play(white, black, tc="2+0.05")
    assert record.result.pgn == ("0-1" if faulty_color == chess.WHITE else "1-0")
    assert record.termination == termination
    assert reason in record.reason
    assert dict(record.faults) == {"Bad": fault}
    assert f'[Termination "{termination}"]' in record.pgn
    assert reason in record.pgn  # the final comment
    moves_of(record)  # the PGN reads back cleanly


@pytest.mark.parametrize(
    ("fault", "termination", "kind", "reason"),
    [
        *((fault, *costs) for fault, costs in FAULTS.items()),
        # An XBoard engine that never answers protover is played without features, as XBoard plays it: it
        # then stays silent when asked to move.
        ("no-handshake", "time forfeit", "time forfeit", "loses on time"),
    ],
)
def test_each_fault_of_an_xboard_engine_costs_it_the_game(fault: str, termination: str, kind: str, reason: str) -> None:
    """pyengine speaking XBoard, with every fault it has for XBoard, against a sound UCI engine."""
    good = spec("greedy-uci", "Good")
    bad = spec("random-xboard", "Bad", handshake_timeout=5.0)  # more than the 2 s a silent engine is waited for
    bad = dataclasses.replace(bad, command=(*bad.command, "--fault", fault, "--after", "1", "--delay", "0.6"))
    record = play(good, bad, tc="0.5+0.05", black_time_margin=0.05)
    assert (record.result.pgn, record.termination) == ("1-0", termination), record.reason
    assert reason in record.reason and dict(record.faults) == {"Bad": kind}
    moves_of(record)


def test_null_move_is_illegal_even_in_check() -> None:
    in_check = "rnbqkbnr/ppp1pppp/8/1B1p4/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2"
    assert chess.Board(in_check).is_check()
    bad = spec("fault-null", "Bad", command=(*spec("fault-null").command, "--after", "0"))
    record = play(spec("random-uci", "Good"), bad, start_fen=in_check)
    assert (record.result.pgn, record.termination, record.plies) == ("1-0", "rules infraction", 0)
    assert record.faults == {"Bad": "illegal move"}


@pytest.mark.parametrize(("variant", "fen"), [("chess", "KQkq"), ("chess960", "HAha")])
def test_castling_written_as_the_king_taking_its_rook_is_a_move_in_chess960_only(variant: str, fen: str) -> None:
    """UCI writes castling e1g1 in standard chess; python-chess also reads e1h1 there, fastchess finds no such
    move, an illegal move (fishtest stops a test on it). tmanager played it as castling."""
    castler = spec("random-uci", "Castler")
    castler = dataclasses.replace(castler, command=(*castler.command, "--fault", "rook-castling", "--after", "0"))
    record = play(castler, spec("greedy-uci", "Good"), variant=variant,
                  start_fen=f"r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w {fen} - 0 1",
                  adjudication=Adjudication(max_moves=1))
    if variant == "chess":
        assert (record.result.pgn, record.plies, dict(record.faults)) == ("0-1", 0, {"Castler": "illegal move"})
        assert "e1h1 is not UCI's notation of e1g1" in record.reason
    else:
        assert record.faults == {} and moves_of(record)[0] == chess.Move.from_uci("e1h1")


@pytest.mark.parametrize("faulty_color", [chess.WHITE, chess.BLACK])
def test_a_uci_engine_that_answers_no_move_where_it_has_one_makes_an_illegal_move(faulty_color: chess.Color) -> None:
    """``bestmove (none)`` where there is a move to play claims no result (UCI has no claims): fastchess scores
    it as an illegal move; it was scored as a false result claim."""
    bad = spec("random-uci", "Bad")
    bad = dataclasses.replace(bad, command=(*bad.command, "--fault", "no-move", "--after", "1"))
    good = spec("greedy-uci", "Good")
    white, black = (bad, good) if faulty_color == chess.WHITE else (good, bad)
    record = play(white, black, tc="2+0.05")
    assert record.result.pgn == ("0-1" if faulty_color == chess.WHITE else "1-0")
    assert (record.termination, dict(record.faults)) == ("rules infraction", {"Bad": "illegal move"})
    assert "makes an illegal or unreadable move (no move in a position that has legal moves)" in record.reason
    moves_of(record)


@pytest.mark.timing
@pytest.mark.parametrize("fault", ["fault-slow", "fault-stall"])
def test_time_loss_says_by_how_much(fault: str) -> None:
    bad = spec(fault, "Bad", command=(*spec(fault).command, "--after", "1", "--delay", "0.6"))
    record = play(spec("greedy-uci", "Good"), bad, tc="0.4+0", black_time_margin=0.05)
    match = re.fullmatch(
        r"Black loses on time \((\d+) ms overrun: no move after (\d+) ms with (\d+) ms left, margin 50 ms\)",
        record.reason,
    )
    assert match, record.reason
    overrun, elapsed, left = map(int, match.groups())
    assert overrun >= 50 and abs(elapsed - left - overrun) <= 1
    # The losing move is the engine's worst overstep; the other engine had time to spare.
    assert record.oversteps["Bad"] * 1000 == pytest.approx(overrun, abs=1)
    assert record.oversteps["Good"] < 0


@pytest.mark.timing
def test_a_late_move_awaited_past_the_margin_still_loses_by_the_overrun_it_came_with() -> None:
    # fastchess awaits a move 100 ms past the time and margin, to tell by how much it was late; without the wait
    # the move, 150 ms past the margin here, went unread ('no move after 452 ms'), the overrun the wait's.
    bad = spec("fault-slow", "Bad", command=(*spec("fault-slow").command, "--after", "1", "--delay", "0.6"))
    record = play(spec("greedy-uci", "Good"), bad, tc="0.4+0", black_time_margin=0.05, late_move_wait=0.4)
    match = re.fullmatch(
        r"Black loses on time \((\d+) ms overrun: moved after (\d+) ms with 400 ms left, margin 50 ms\)", record.reason,
    )
    assert match, record.reason
    assert 190 <= int(match[1]) < 400, record.reason


@pytest.mark.timing
@pytest.mark.parametrize(("fault", "kept"), [("fault-slow", True), ("fault-stall", False)])
def test_an_engine_late_on_time_is_kept_for_the_next_game_only_if_it_still_answers(fault: str, kept: bool) -> None:
    """fault-slow answers ``stop`` (with its late move) and ``isready``; fault-stall never ends its
    search, so it cannot be trusted with another game and is replaced."""
    bad = spec(fault, "Bad", command=(*spec(fault).command, "--after", "1", "--delay", "0.6"))
    limits = TimeControl.parse("0.4+0")

    def bad_engines() -> set[int]:
        return children_running(f"--fault {fault.removeprefix('fault-')}")

    async def main() -> list[set[int]]:
        pool = EnginePool()
        seen = []
        try:
            for _ in range(2):
                game = GameSpec(white=spec("greedy-uci", "Good"), black=bad, white_limits=limits, black_limits=limits,
                                black_time_margin=0.05)
                record = await play_game(game, pool)
                assert (record.result.pgn, record.termination) == ("1-0", "time forfeit"), record.reason
                seen.append(bad_engines())
        finally:
            await pool.close()
        return seen

    after_first, after_second = run_async(main())
    if kept:
        assert len(after_first) == 1 and after_second == after_first, "the late engine was restarted"
    else:
        assert after_first == after_second == set(), "an engine that does not answer was kept"


def test_an_engine_that_keeps_searching_after_its_time_loss_is_replaced_after_the_stop_grace() -> None:
    """fault-stall answers ``isready`` but never ends its search: after its time loss it gets
    STOP_GRACE seconds for its ``bestmove``, as fastchess gives it, not the whole ping timeout (here 30 s)."""
    bad = spec("fault-stall", "Bad", command=(*spec("fault-stall").command, "--after", "1"), ping_timeout=30.0)
    limits = TimeControl.parse("0.4+0")

    async def main() -> tuple[GameRecord, float, set[int]]:
        pool = EnginePool()
        try:
            game = GameSpec(white=spec("greedy-uci", "Good"), black=bad, white_limits=limits, black_limits=limits)
            started = time.monotonic()
            record = await play_game(game, pool)
            return record, time.monotonic() - started, children_running("--fault stall")
        finally:
            await pool.close()

    record, took, left = run_async(main())
    assert (record.result.pgn, record.termination) == ("1-0", "time forfeit"), record.reason
    assert STOP_GRACE <= took < STOP_GRACE + 10, "the stopped search was waited on for the whole ping"
    assert left == set(), "an engine still searching was kept"


@pytest.mark.parametrize(
    ("ready", "result", "kept"),
    [
        ((False, True), "0-1", {"greedy"}),
        ((True, False), "1-0", {"greedy"}),
    ],
    ids=["white-never-ready", "black-never-ready"],
)
def test_an_engine_that_never_gets_ready_loses_before_its_first_move_and_is_not_kept(
    ready: tuple[bool, bool], result: str, kept: set[str]
) -> None:
    """Both engines get ready for a game side by side (``ucinewgame``, ``isready``): one that never
    answers loses within its handshake_timeout, and only an engine that answered is kept for the next game."""
    white, black = (
        spec("greedy-uci", name) if is_ready else spec("fault-no-ready", name, handshake_timeout=0.5)
        for name, is_ready in zip(("W", "B"), ready, strict=True)
    )
    limits = TimeControl.parse("2+0.05")

    async def main() -> tuple[GameRecord, set[str]]:
        pool = EnginePool()
        try:
            record = await play_game(GameSpec(white=white, black=black, white_limits=limits, black_limits=limits), pool)
            still = {name for name, mark in (("greedy", "--style greedy"), ("no-ready", "--fault no-ready"))
                     if children_running(mark)}
        finally:
            await pool.close()
        return record, still

    record, still = run_async(main())
    loser = "W" if result == "0-1" else "B"
    side = "White" if loser == "W" else "Black"
    assert (record.result.pgn, record.termination, record.plies) == (result, "abandoned", 0)
    assert record.reason == f"{side}'s engine did not answer isready in 0.5 s"
    assert record.faults == {loser: "handshake"}
    assert still == kept


@pytest.mark.parametrize(("fault", "says"), [
    ("fault-crash-start", "'W' failed to start (engine process died unexpectedly (exit code: 1)); 'B' failed to start"),
    ("fault-no-ready", "'W' did not answer isready in 1 s; 'B' did not answer isready in 1 s"),
])  # fmt: skip
def test_a_game_neither_of_whose_engines_can_play_is_no_game(fault: str, says: str) -> None:
    """Both engines exit at start-up, or neither gets ready: White's failure, checked first, was scored its loss
    (0-1, Black a win it never played for). Neither side played: a configuration error, no game, neither kept."""
    # A handshake of 10 s, as a loaded machine may take to start Python, and a second to get ready.
    white, black = (spec(fault, name, handshake_timeout=10.0, ready_timeout=1.0) for name in ("W", "B"))
    limits = TimeControl.parse("2+0.05")

    async def main() -> None:
        pool = EnginePool()
        try:
            refused = re.escape(f"neither engine could play, so no game is scored: {says}")
            with pytest.raises(ConfigError, match=refused):
                await play_game(GameSpec(white=white, black=black, white_limits=limits, black_limits=limits), pool)
            assert not children_running(f"--fault {fault.removeprefix('fault-')}"), "a failed engine was kept"
        finally:
            await pool.close()

    run_async(main())


@pytest.mark.parametrize(
    ("variant", "fen", "result", "reason"),
    [
        ("3check", "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 1+3 0 3", "1-0",
         "White wins by giving a third check"),
        ("atomic", "4k3/4p3/8/8/8/8/8/4R1K1 w - - 0 1", "1-0", "White wins by exploding Black's king"),
        ("kingofthehill", "8/8/8/8/8/4K3/8/k7 w - - 0 1", "1-0", "White wins by bringing its king to the centre"),
        ("racingkings", "8/K7/8/8/8/8/8/7k w - - 0 1", "1-0",
         "White wins the race: its king reaches the eighth rank first"),
        ("horde", "4k3/8/8/8/8/8/3q4/4P3 b - - 0 1", "0-1", "Black wins by capturing the whole horde"),
        ("antichess", "8/8/8/8/8/1p6/P7/8 w - - 0 1", "0-1", "Black wins by losing all its pieces"),
        ("antichess", "8/8/8/8/p7/8/P7/8 b - - 0 1", "1-0", "White wins: White has no legal move"),
        ("crazyhouse", "rnbqkbnr/ppppp2p/5p2/6p1/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 3", "1-0", "White mates"),
    ],
)
def test_variant_ends_are_named_after_what_happened(variant: str, fen: str, result: str, reason: str) -> None:
    # One move from the end: the greedy engine takes a win in one.
    record = play(spec("greedy-uci", "A"), spec("greedy-uci", "B"), variant=variant, start_fen=fen)
    assert (record.result.pgn, record.termination, record.reason, record.plies) == (result, "normal", reason, 1)


@pytest.mark.parametrize(
    ("engine", "variant", "says"),
    [
        ("stockfish", "atomic", "does not play variant atomic (it offers none: it has no UCI_Variant option)"),
        ("phalanx", "atomic", "does not play variant atomic"),
    ],
)
@pytest.mark.parametrize("color", [chess.WHITE, chess.BLACK])
def test_an_engine_that_refuses_the_variant_is_a_configuration_error(
    engine: str, variant: str, says: str, color: chess.Color
) -> None:
    refusing, good = spec(engine, "Refuses"), spec("random-uci", "Good")
    white, black = (refusing, good) if color == chess.WHITE else (good, refusing)
    with pytest.raises(ConfigError, match=f"engine 'Refuses' {re.escape(says)}"):
        play(white, black, variant=variant)


def test_an_unknown_option_is_a_configuration_error() -> None:
    bad = spec("random-uci", "Bad", options={"Hash": 16, "NoSuchOption": 1})
    with pytest.raises(ConfigError, match=r"engine 'Bad' refuses its options: .*NoSuchOption"):
        play(spec("random-uci", "Good"), bad)


def test_an_unknown_option_is_told_with_every_option_the_engine_has() -> None:
    """Stockfish has over 20 options: the list is the help, and it is not cut short."""
    bad = spec("stockfish", "Bad", options={"NoSuchOption": 1})
    with pytest.raises(ConfigError) as refused:
        play(spec("random-uci", "Good"), bad)
    listed = refused.value.message.partition("(available options: ")[2]
    assert listed.endswith(")") and "SyzygyProbeLimit, " in listed and len(listed.split(", ")) > 15


def test_pgn_comments_carry_the_chosen_fields_as_fastchess_writes_them() -> None:
    sf = spec("stockfish", "SF1")
    record = play(sf, dataclasses.replace(sf, name="SF2"), tc="10+0.1", adjudication=Adjudication(max_moves=3),
                  comments=True, comment_fields=("pv", "nodes", "timeleft", "latency", "seldepth", "nps",
                                                 "hashfull", "tbhits"))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None
    # Long comments wrap within PGN's 80 columns, as the move text does: a line break is a space in a comment.
    assert max(map(len, record.pgn.splitlines())) <= 80 and any(len(node.comment) > 80 for node in game.mainline())
    comments = [" ".join(node.comment.split()) for node in game.mainline()]
    assert len(comments) == 6
    pattern = (
        r"([+-]\d+\.\d\d|0\.00|[+-]M\d+)/\d+ \d+\.\d{3}s, tl=\d+\.\d{3}s, latency=-?\d+\.\d{3}s, n=\d+, sd=\d+, "
        r'nps=\d+, hashfull=\d+, tbhits=\d+, pv="[a-h1-8qrbn ]+"'
    )
    for comment in comments[:-1]:
        assert re.fullmatch(pattern, comment), comment
    assert re.fullmatch(pattern + ", Draw by adjudication: 3 moves reached", comments[-1]), comments[-1]


@pytest.mark.parametrize(("notation", "first"), [(Notation.SAN, "1. "), (Notation.LAN, "-"), (Notation.UCI, "")])
def test_pgn_notation_and_minimal_pgn(notation: Notation, first: str) -> None:
    opening = ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), notation=notation, opening_moves=opening,
                  adjudication=Adjudication(max_moves=4), tags={"GameNumber": "7", "Round": "3"})
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and not game.errors
    assert [m.uci() for m in game.mainline_moves()][:6] == list(opening)
    movetext = record.pgn.split("\n\n")[1]
    assert movetext.startswith("1. " + {"san": "e4 e5", "lan": "e2-e4 e7-e5", "uci": "e2e4 e7e5"}[notation]), movetext
    minimal = play(spec("random-uci", "A"), spec("random-uci", "B"), notation=notation, minimal=True, comments=True,
                   adjudication=Adjudication(max_moves=4), tags={"GameNumber": "7", "Round": "3"})
    game = chess.pgn.read_game(io.StringIO(minimal.pgn))
    assert game is not None and not game.errors and len(list(game.mainline_moves())) == 8
    assert list(game.headers) == ["Event", "Site", "Date", "Round", "White", "Black", "Result", "GameNumber"]
    assert "{" not in minimal.pgn and first in minimal.pgn


class ByReplay(chess.pgn.StringExporter):
    """The reference: python-chess's exporter visiting the game on its board, each move in ``notation``,
    in PGN's export format (lines within 80 columns)."""

    def __init__(self, notation: str) -> None:
        super().__init__(columns=80)
        self.notation = notation

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.notation == "san":
            super().visit_move(board, move)
            return
        if board.turn == chess.WHITE:
            self.write_token(f"{board.fullmove_number}. ")
        elif self.force_movenumber:
            self.write_token(f"{board.fullmove_number}... ")
        self.write_token((board.lan(move) if self.notation == "lan" else board.uci(move)) + " ")
        self.force_movenumber = False


@pytest.mark.parametrize("notation", list(Notation))
@pytest.mark.parametrize(("variant", "fen", "opening"), [
    # A rook that goes e1-h1 where the king stood on e1 at the start (not castling: the king has moved).
    ("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", ("e1d1", "e8d8", "h1e1", "a8a7", "e1h1")),
    ("chess", "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 9", ("e8g8", "e1c1")),  # black first, both castle
    ("chess960", "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", ("e1g1", "e8b8")),  # king takes rook
    ("chess", None, ("e2e4", "f7f6", "d1h5")),  # a check in the opening
    ("3check", None, ("e2e4", "f7f6", "d1h5")),
])
def test_a_pgn_is_what_python_chess_writes(notation: Notation, variant: str, fen: str | None,
                                           opening: tuple[str, ...]) -> None:
    """The moves are written without a move tree or a board replay: python-chess's exporter, reading the
    game back and writing it again, must give the very same text, with the same moves and comments."""
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), notation=notation, comments=True,
                  variant=variant, start_fen=fen, opening_moves=opening, adjudication=Adjudication(max_moves=12))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None and not game.errors
    assert tuple(m.uci() for m in game.mainline_moves())[: len(opening)] == opening
    comments = [node.comment for node in game.mainline()]
    assert comments[len(opening) - 1] == "book" and all(comments[len(opening):-1])
    assert comments[-1].endswith(record.reason)
    assert game.accept(ByReplay(notation)) + "\n\n" == record.pgn


@pytest.mark.parametrize(
    ("notation", "mate"), [(Notation.SAN, "Ra8#"), (Notation.LAN, "Ra1-a8#"), (Notation.UCI, "a1a8")]
)
def test_an_engines_mate_is_written_with_its_sign(notation: Notation, mate: str) -> None:
    record = play(spec("stockfish", "SF1"), spec("stockfish", "SF2"), notation=notation,
                  start_fen="6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    assert record.result.pgn == "1-0" and record.reason == "White mates"
    assert f"1. {mate} {{ White mates }} 1-0" in record.pgn, record.pgn


def test_the_final_position_comes_as_epd() -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), adjudication=Adjudication(max_moves=5))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None
    board = game.end().board()
    assert record.epd == f"{board.epd()} hmvc {board.halfmove_clock}; fmvn {board.fullmove_number};"


LOG_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}) (.+?) (<---|--->) (.*)")


def engine_log_lines(path: Path) -> list[tuple[str, str, str, str]]:
    lines = []
    for text in path.read_text().splitlines():
        match = LOG_LINE.fullmatch(text)
        if match:
            lines.append((match[1], match[2], match[3], match[4]))
        else:
            assert " game ?: " in text, text  # the header of each game
    return lines


def test_engine_log_has_every_line_to_and_from_each_engine(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "game.log"
    pool = EnginePool()
    uci, xboard = spec("random-uci", "U"), spec("random-xboard", "X")

    async def two_games() -> list[GameRecord]:
        limits = TimeControl.parse("5+0.05")
        game = GameSpec(white=uci, black=xboard, white_limits=limits, black_limits=limits, engine_log=str(log),
                        adjudication=Adjudication(max_moves=5))
        try:
            return [await play_game(game, pool), await play_game(dataclasses.replace(game, engine_log=""), pool),
                    await play_game(game, pool)]
        finally:
            await pool.close()

    first, _, third = run_async(two_games())
    lines = engine_log_lines(log)
    assert log.read_text().count(" game ?: U - X\n") == 2  # the second game wrote nothing
    stamps = [line[0] for line in lines]
    assert stamps == sorted(stamps)
    said = {(name, arrow, text.split()[0]) for _, name, arrow, text in lines if text}
    # The handshakes of the first game (engines started then), named after their participants.
    assert {("U", "<---", "uci"), ("U", "--->", "uciok"), ("X", "<---", "protover"), ("X", "--->", "feature")} <= said
    assert {name for _, name, _, _ in lines} == {"U", "X"}  # also the engines kept for the third game
    moves = [text.split()[1] for _, name, arrow, text in lines if name == "U" and text.startswith("bestmove")]
    assert moves == [m.uci() for m in moves_of(first)[0::2]] + [m.uci() for m in moves_of(third)[0::2]]
    # Nothing leaks into the logger's level once the logs are closed.
    assert logging.getLogger("chess.engine").level == logging.NOTSET


def test_a_kept_engine_gets_ready_for_its_next_game_as_soon_as_its_game_ends(tmp_path: Path) -> None:
    """``ucinewgame`` and ``isready`` go to the engines kept when their game ends, while their worker records
    it, so that the next game begins with ``position`` and ``go``; after a game with an engine log, they go
    at the next game's start instead, and that game's log holds them."""
    logs = [tmp_path / f"game{n}.log" for n in range(3)]
    white = seeded(spec("greedy-uci", "W"), 1)
    limits = TimeControl.parse("5+0.05")
    game = GameSpec(white=white, black=dataclasses.replace(white, name="B"), white_limits=limits, black_limits=limits,
                    adjudication=Adjudication(max_moves=3))

    async def main() -> list[GameRecord]:
        pool = EnginePool()
        try:
            return [await play_game(dataclasses.replace(game, engine_log=str(log) if n else ""), pool)
                    for n, log in enumerate(logs)]
        finally:
            await pool.close()

    records = run_async(main())
    assert [record.plies for record in records] == [6, 6, 6]

    def sent(log: Path, name: str) -> list[str]:
        return [text for _, who, arrow, text in engine_log_lines(log) if who == name and arrow == "<---"]

    assert not logs[0].exists()
    for log in logs[1:]:
        assert next(text for text in sent(log, "W") if text.startswith("position")) == "position startpos"
    for name in ("W", "B"):
        commands = [text.split()[0] for text in sent(logs[1], name)]
        assert commands[:2] == ["position", "go"] and "ucinewgame" not in commands, "got ready as its game began"
        assert [text.split()[0] for text in sent(logs[2], name)][:4] == ["ucinewgame", "isready", "position", "go"]


def test_a_pondering_engine_is_told_ponderhit_or_stop_for_each_ponder_search(tmp_path: Path) -> None:
    """Stockfish with ``ponder = true`` ponders the move it expects after each of its moves (``go ponder``),
    and each ponder search ends with ``ponderhit`` when the opponent played that move, else ``stop``."""
    log = tmp_path / "ponder.log"
    record = play(spec("stockfish", "P", ponder=True), spec("stockfish", "Q"), tc="2+0.05",
                  adjudication=Adjudication(max_moves=25), engine_log=str(log))
    assert record.termination != "time forfeit" and not record.faults
    sent = [text for _, who, arrow, text in engine_log_lines(log) if who == "P" and arrow == "<---"]
    ponders = sum(text.startswith("go ponder") for text in sent)
    assert "setoption name Ponder value true" in sent and ponders >= 10
    assert sent.count("ponderhit") + sent.count("stop") == ponders
    assert sent.count("ponderhit") >= 1, "Stockfish against itself foresees some of the replies"
    said = [text for _, who, arrow, text in engine_log_lines(log) if who == "P" and arrow == "--->"]
    # A bestmove for each of its moves, and one for each ponder search stopped (thrown away).
    assert sum(text.startswith("bestmove") for text in said) == (record.plies + 1) // 2 + sent.count("stop")


def test_engine_log_names_an_engine_that_fails_its_handshake(tmp_path: Path) -> None:
    log = tmp_path / "game.log"
    record = play(spec("fault-no-handshake", "Mute"), spec("random-uci", "Good"), engine_log=str(log))
    assert record.faults == {"Mute": "handshake"}
    assert [(name, arrow, text) for _, name, arrow, text in engine_log_lines(log)][:1] == [("Mute", "<---", "uci")]


def test_stall_with_nodes_limit_uses_move_timeout() -> None:
    limits = TimeControl.parse("inf", nodes=100)
    game = GameSpec(white=spec("fault-stall", "Bad"), black=spec("random-uci", "Good"),
                    white_limits=limits, black_limits=limits, move_timeout=1.0)
    record = run_async(play_game(game))
    assert (record.result.pgn, record.termination) == ("0-1", "abandoned")
    assert "stalls" in record.reason and record.faults == {"Bad": "stall"}


def test_normal_game_is_legal_and_ends_by_the_rules() -> None:
    record = play(spec("greedy-uci", "A"), spec("greedy-xboard", "B"), comments=True)
    moves = moves_of(record)
    board = chess.Board()
    for move in moves:
        assert move in board.legal_moves
        board.push(move)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None and outcome.result() == record.result.pgn
    assert record.termination == "normal" and not record.faults
    assert re.search(r"\{ ([+-]\d+\.\d\d|0\.00)/1 \d+\.\d{3}s \}", record.pgn)  # "score/depth time"


def test_max_moves_adjudication() -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"),
                  adjudication=Adjudication(max_moves=10))
    if record.termination == "adjudication":
        assert record.result.pgn == "1/2-1/2" and len(moves_of(record)) == 20
        assert "10 moves reached" in record.reason
    else:  # a random game may end by the rules before move 10
        assert len(moves_of(record)) < 20


def test_start_position_and_opening_moves_are_recorded() -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    record = play(spec("random-uci", "A"), spec("random-xboard", "B"), start_fen=fen, opening_moves=("f1b5", "a7a6"),
                  adjudication=Adjudication(max_moves=8))
    game = chess.pgn.read_game(io.StringIO(record.pgn))
    assert game is not None
    assert game.headers["FEN"] == fen and game.headers["SetUp"] == "1"
    mainline = list(game.mainline())
    assert [n.move.uci() for n in mainline[:2]] == ["f1b5", "a7a6"]
    assert mainline[1].comment.startswith("book")


@pytest.mark.timing
def test_stockfish_game_under_clock_no_time_loss() -> None:
    sf = spec("stockfish", "SF1")
    record = play(sf, dataclasses.replace(sf, name="SF2"), tc="1+0.01", adjudication=Adjudication(max_moves=60))
    assert record.termination != "time forfeit"
    assert record.worst_overstep is not None and record.worst_overstep < 0


@pytest.mark.timing  # it asserts wall-clock durations: with other tests beside it, a turn can fall otherwise
def test_an_engine_is_not_charged_for_the_time_its_answer_waits_in_a_busy_event_loop() -> None:
    """From the first move on, another game's work holds the event loop ``block`` seconds at each turn.
    An engine's answer is read after one such turn, and the game resumes only after the next: the
    engine's time ends at the read (two turns from its ``go``), not at the game's resumption (three).
    Each engine thinks 20 ms, so that its answer cannot come before the loop's next look for it (an engine
    answering at once could, on a loaded machine that takes the CPU from the manager as it writes the ``go``)."""
    block = 0.2
    limits = TimeControl.parse("10+0.1")
    thinking = (*spec("random-uci").command, "--fault", "slow", "--delay", "0.02")
    white, black = (spec("random-uci", name, command=thinking) for name in ("A", "B"))
    game = GameSpec(white=white, black=black, white_limits=limits, black_limits=limits,
                    adjudication=Adjudication(max_moves=3), comments=True)

    async def main() -> GameRecord:
        first_move = asyncio.Event()  # the engines' handshakes are left alone: they have a timeout of their own

        async def busy_loop() -> None:
            await first_move.wait()
            while True:
                time.sleep(block)
                await asyncio.sleep(0)

        other_game = asyncio.create_task(busy_loop())
        try:
            return await play_game(game, on_move=lambda *_: first_move.set())
        finally:
            other_game.cancel()

    record = run_async(main())
    times = [float(seconds) for seconds in re.findall(r" (\d+\.\d{3})s", record.pgn)]
    assert len(times) == 6 and times[-1] >= block, f"the loop was held while the engines thought: {times}"
    assert max(times) < 2.5 * block, times


@pytest.mark.parametrize(
    ("fen", "result", "reason"),
    [
        # Start positions with the fifty-move counter at 0 are probed before the first move, as by fastchess.
        ("8/8/8/4k3/8/8/8/KQ6 b - - 0 1", "1-0", "White wins by tablebase adjudication"),
        ("8/8/8/4K3/8/8/8/kq6 w - - 0 1", "0-1", "Black wins by tablebase adjudication"),
        ("8/8/3k4/3n4/8/3N4/3K4/8 w - - 0 1", "1/2-1/2", "Draw by tablebase adjudication"),
    ],
)
def test_syzygy_adjudication(syzygy: str, fen: str, result: str, reason: str) -> None:
    rules = Adjudication(syzygy=syzygy, syzygy_pieces=5)
    record = play(spec("random-uci", "A"), spec("random-xboard", "B"), start_fen=fen, adjudication=rules)
    assert (record.result.pgn, record.termination, record.reason) == (result, "adjudication", reason)
    assert moves_of(record) == []


SHUFFLE = ("g1f3", "g8f6", "f3g1", "f6g8")  # the knights out and back: the start position again


def test_a_position_repeated_a_third_time_by_the_opening_is_a_draw_before_any_move() -> None:
    record = play(spec("random-uci", "A"), spec("random-uci", "B"), opening_moves=SHUFFLE * 2)
    assert (record.result.pgn, record.termination, record.plies) == ("1/2-1/2", "normal", 0)
    assert record.reason == "Draw by 3-fold repetition"


def test_repetitions_count_the_positions_of_the_opening_since_its_last_capture_or_pawn_move() -> None:
    board = chess.Board()
    for uci in ("e2e4", "e7e5", *SHUFFLE):  # the position after 1. e4 e5 twice; the start position is out of reach
        board.push_uci(uci)
    repetitions = Repetitions(board)
    assert repetitions.now(board) == 2
    for uci in SHUFFLE[:2]:
        board.push_uci(uci)
        assert repetitions.count(board, irreversible=False) == 2  # after 2. Nf3 Nf6, the second time
    for uci in SHUFFLE[2:]:
        board.push_uci(uci)
    assert repetitions.count(board, irreversible=False) == 3
    assert rules_outcome(board, repetitions.now(board)) is not None
    board.push_uci("d2d4")
    assert repetitions.count(board, irreversible=True) == 1
