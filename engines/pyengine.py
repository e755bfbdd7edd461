#!/usr/bin/env python3
"""pyengine: a tiny chess engine for demos and tests, speaking UCI or XBoard.

It answers at once, plays any variant python-chess knows (Chess960 included)
and flushes every line it writes. Usage::

    pyengine.py [--protocol uci|xboard] [--style random|greedy] [--seed N]
                [--score CP] [--fault MODE] [--after N] [--delay S] [--info-string TEXT]
                [--optimum NAME=VALUE ... [--horizon N] [--jitter N]]

Styles:

``random``
    a uniformly random legal move.
``greedy``
    a mate in one if there is one, else the capture of the most valuable
    piece, else a random move.

With a ``--seed`` the choice is reproducible: the same seed and the same
positions give the same moves.

Each move comes with a one-ply search report: UCI ``info depth 1 score cp N
nodes N time MS pv MOVE``, XBoard thinking output ``1 N CS NODES MOVE`` after
``post``. The score is the material balance after the move, from the mover's
point of view, unless ``--score CP`` forces a constant (``--score -1000`` to
trigger resign adjudication, ``--score 0`` for draw adjudication).

``--info-string TEXT`` (UCI) sends ``info string TEXT`` before each move's report,
as engines send lines for the PGN (OpenBench's ``info string pgncomment …``).

``--optimum NAME=VALUE`` (UCI, repeatable) declares a spin option NAME whose best value is VALUE, for
SPSA tests: the engine reports a score of 0 until its position collapses, then -1000. It collapses at
move number ``max(1, horizon - distance)``, the distance being the sum of its options' distances from
their best values (``--horizon``, default 50): with resign adjudication (``resign_moves = 1``,
``resign_score`` up to 1000) the engine further from the optimum loses, white when both are as far
(so a colour-reversed pair is then drawn 1-1). Play a random style with a seed, and the games are
the same each time. ``--jitter N`` adds to that distance a number from -N to N drawn from the game's
starting position (the ``position`` command's ``fen``, or ``startpos``): a fixed base given it wins
against an engine as far as the opening says, so that over a book the tuned engine's score against
it falls steadily with its distance, not in one step.

``--fault MODE`` makes the engine misbehave; see :data:`FAULTS`. Faults that
strike in mid-game do so once the game is ``--after N`` moves old (default
3), that is from the position after 2N plies: from the usual start the engine
has then played N good moves. Opening moves count as game moves.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import chess
import chess.variant

FAULTS = {
    "crash-start": "exit with status 1 at start-up, before answering the handshake",
    "no-handshake": "read input for ever without ever answering (no uciok, no feature done=1); exits at EOF",
    "no-ready": "UCI only: answer the handshake, then never answer isready; exits at EOF",
    "crash-mid": "exit abruptly (status 3) instead of playing, once the game is N moves old",
    "stall": "stop answering go once the game is N moves old; still answers isready and ping",
    "illegal": "play a move from an empty square once the game is N moves old",
    "garbage": "answer 'bestmove xyz123' / 'move xyz123' once the game is N moves old",
    "null": "answer a null move ('bestmove 0000' / 'move @@@@') once the game is N moves old",
    "rook-castling": "castle as soon as it may once the game is N moves old, written as the king taking its rook "
                     "(e1h1, Chess960's notation) in standard chess too, where UCI writes e1g1",
    "no-move": "UCI only: answer 'bestmove (none)', UCI's word for no legal move, once the game is N moves old",
    "bare-bestmove": "UCI only: answer a bare 'bestmove', with no word after it, once the game is N moves old",
    "false-claim": "XBoard only: claim a mate ('1-0 {White mates}') instead of moving, once N moves old",
    "slow": "think --delay seconds for every move, whatever the clock says",
    "bad-pv": "UCI only: a PV that goes on with an illegal move (the best move twice), once N moves old",
    "bad-mate-pv": "UCI only: report mate in 1 with a PV that does not mate, once N moves old",
    "no-score": "UCI only: report the search without a score ('info depth 1 nodes N pv MOVE'), once N moves old",
}

GARBAGE = "xyz123"

PIECE_VALUES = {
    chess.PAWN: 100,
    chess.KNIGHT: 300,
    chess.BISHOP: 300,
    chess.ROOK: 500,
    chess.QUEEN: 900,
    chess.KING: 0,
}

#: Every variant python-chess plays, by the names each protocol uses.
UCI_VARIANTS = [v.uci_variant for v in chess.variant.VARIANTS if v.uci_variant]
XBOARD_VARIANTS = ["fischerandom", *(v.xboard_variant for v in chess.variant.VARIANTS if v.xboard_variant)]


def say(line: str) -> None:
    """Write one line to the manager, flushed at once: it is waiting for it."""
    print(line, flush=True)


def material(board: chess.Board, color: chess.Color) -> int:
    """Material balance in centipawns from ``color``'s point of view."""
    return sum(
        value * (len(board.pieces(piece, color)) - len(board.pieces(piece, not color)))
        for piece, value in PIECE_VALUES.items()
    )


def captured_value(board: chess.Board, move: chess.Move) -> int:
    """The value of the piece ``move`` takes (0 for a quiet move)."""
    if board.is_en_passant(move):
        return PIECE_VALUES[chess.PAWN]
    victim = board.piece_at(move.to_square)
    return PIECE_VALUES[victim.piece_type] if victim and victim.color != board.turn else 0


def mates(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` wins at once (checkmate, or the variant's own win)."""
    board.push(move)
    try:
        return board.is_checkmate() or board.is_variant_loss()
    finally:
        board.pop()


def empty_square_move(board: chess.Board) -> chess.Move:
    """A well-formed move that can never be legal: it starts on an empty square."""
    empty = next(sq for sq in chess.SQUARES if board.piece_at(sq) is None)
    return chess.Move(empty, empty + 8 if empty < 56 else empty - 8)


@dataclass(frozen=True)
class Reply:
    """An answer to go: ``move`` is ``None`` when ``text`` is deliberately not a legal move."""

    move: chess.Move | None
    text: str
    score: int
    nodes: int
    seconds: float
    pv: str = ""  #: the reported PV, when not the move alone
    mate: int | None = None  #: a mate score to report instead of ``score``
    scored: bool = True  #: whether the report gives a score at all


class Engine:
    """Move choice, score and faults; the protocol loops below only translate."""

    def __init__(self, options: argparse.Namespace) -> None:
        self.style: str = options.style
        self.rng = random.Random(options.seed)
        self.score: int | None = options.score
        self.fault: str | None = options.fault
        self.after: int = options.after
        self.delay: float = options.delay
        self.info_string: str | None = options.info_string
        self.optimum: dict[str, int] = dict(options.optimum)
        self.horizon: int = options.horizon
        self.values: dict[str, int] = dict.fromkeys(self.optimum, 0)
        self.jitter: int = options.jitter
        self.origin = "startpos"  #: the game's starting position, as the position command gives it

    def collapsed(self, board: chess.Board) -> bool:
        """With ``--optimum``: whether this engine's position has collapsed, by its options' distance."""
        distance = sum(abs(self.values[name] - best) for name, best in self.optimum.items())
        if self.jitter:
            drawn = int.from_bytes(hashlib.sha256(self.origin.encode()).digest()[:8], "big")
            distance += drawn % (2 * self.jitter + 1) - self.jitter
        return board.fullmove_number >= max(1, self.horizon - distance)

    def choose(self, board: chess.Board) -> chess.Move:
        """The move this engine's style picks; ``board`` must have a legal move."""
        moves = list(board.legal_moves)
        if self.style == "greedy":
            self.rng.shuffle(moves)  # ties go to a random one of the best
            mate = next((m for m in moves if mates(board, m)), None)
            if mate:
                return mate
            best = max(moves, key=lambda m: captured_value(board, m))
            if captured_value(board, best):
                return best
        return self.rng.choice(moves)

    def reply(self, board: chess.Board, notation: Callable[[chess.Move], str]) -> Reply | None:
        """What to answer when asked to move in ``board``: ``None`` to stay silent."""
        fault = self.fault if len(board.move_stack) >= 2 * self.after else None
        if fault == "crash-mid":
            os._exit(3)
        if fault == "stall":
            return None
        start = time.monotonic()
        if self.fault == "slow":
            time.sleep(self.delay)
        move = self.choose(board)
        board.push(move)
        score = self.score if self.score is not None else material(board, not board.turn)
        board.pop()
        if self.optimum:
            score = -1000 if self.collapsed(board) else 0
        if fault == "illegal":
            return Reply(None, empty_square_move(board).uci(), score, 1, time.monotonic() - start)
        if fault == "garbage":
            return Reply(None, GARBAGE, score, 1, time.monotonic() - start)
        if fault == "null":
            return Reply(None, notation(chess.Move.null()), score, 1, time.monotonic() - start)
        if fault == "no-move":
            return Reply(None, "(none)", score, 1, time.monotonic() - start)
        if fault == "bare-bestmove":
            return Reply(None, "", score, 1, time.monotonic() - start)
        castling = next((m for m in board.legal_moves if board.is_castling(m)), None)
        if fault == "rook-castling" and castling is not None:
            return Reply(castling, rook_castling(board, castling), score, 1, time.monotonic() - start)
        reply = Reply(move, notation(move), score, board.legal_moves.count(), time.monotonic() - start)
        if fault == "bad-pv":
            return dataclasses.replace(reply, pv=f"{reply.text} {reply.text}")
        if fault == "bad-mate-pv" and not mates(board, move):
            return dataclasses.replace(reply, mate=1)
        if fault == "no-score":
            return dataclasses.replace(reply, scored=False)
        return reply


def rook_castling(board: chess.Board, move: chess.Move) -> str:
    """``move``, a castling, written as the king taking its rook (Chess960's notation, the board's own there)."""
    if board.chess960:
        return move.uci()
    rook = chess.square(7 if board.is_kingside_castling(move) else 0, chess.square_rank(move.from_square))
    return chess.square_name(move.from_square) + chess.square_name(rook)


def board_for(variant: str, *, chess960: bool, fen: str | None = None) -> chess.Board:
    """A board of the named variant, at ``fen`` or the variant's start position."""
    cls = chess.variant.find_variant(variant)
    return cls(fen or cls.starting_fen, chess960=chess960)


def uci(engine: Engine, lines: Iterable[str]) -> None:
    """Serve the UCI protocol on ``lines`` until quit or end of input."""
    variant, chess960 = "chess", False
    board = board_for(variant, chess960=chess960)
    held: list[str] = []  # the answer to "go infinite", given on "stop"
    for line in lines:
        command, _, rest = line.strip().partition(" ")
        try:
            if command == "uci":
                say("id name pyengine")
                say("id author tmanager")
                say("option name Hash type spin default 1 min 1 max 65536")
                say("option name Threads type spin default 1 min 1 max 512")
                say("option name UCI_Chess960 type check default false")
                say("option name UCI_Variant type combo default chess var " + " var ".join(UCI_VARIANTS))
                for name in engine.optimum:
                    say(f"option name {name} type spin default 0 min -1000 max 1000")
                say("uciok")
            elif command == "isready" and engine.fault != "no-ready":
                say("readyok")
            elif command == "setoption":
                name, _, value = rest.removeprefix("name ").partition(" value ")
                if name == "UCI_Chess960":
                    chess960 = value == "true"
                elif name == "UCI_Variant":
                    variant = value
                elif name in engine.optimum:
                    engine.values[name] = int(value)
            elif command == "position":
                spec, _, moves = rest.partition(" moves ")
                engine.origin = spec.strip()
                fen = None if spec.strip() == "startpos" else spec.removeprefix("fen ")
                board = board_for(variant, chess960=chess960, fen=fen)
                for move in moves.split():
                    board.push_uci(move)
            elif command == "go":
                answer = ["bestmove (none)"] if board.is_game_over() else []
                if not answer and (reply := engine.reply(board, board.uci)):
                    ms = round(reply.seconds * 1000)
                    score = f"mate {reply.mate}" if reply.mate is not None else f"cp {reply.score}"
                    score = f" score {score}" if reply.scored else ""
                    strings = [f"info string {engine.info_string}"] if engine.info_string else []
                    pv = reply.pv or reply.text
                    answer = [*strings,
                              f"info depth 1{score} nodes {reply.nodes} time {ms}" + (f" pv {pv}" if pv else ""),
                              f"bestmove {reply.text}".rstrip()]
                if "infinite" in rest.split():
                    held = answer  # an infinite search ends only on stop
                else:
                    for text in answer:
                        say(text)
            elif command == "stop":
                for text in held:
                    say(text)
                held = []
            elif command == "quit":
                return
            # Anything else (ucinewgame, ponderhit, debug…) needs no answer from an engine that
            # never searches in the background.
        except (ValueError, IndexError) as exc:
            say(f"info string error: {exc}")


def xboard(engine: Engine, lines: Iterable[str]) -> None:
    """Serve XBoard protocol 2 on ``lines`` until quit or end of input."""
    board = chess.Board()
    force, post = True, False
    engine_side: chess.Color | None = None
    for line in lines:
        command, _, rest = line.strip().partition(" ")
        try:
            if command == "protover":
                say(
                    "feature setboard=1 ping=1 usermove=1 san=0 sigint=0 colors=0 reuse=1 "
                    f'myname="pyengine" variants="{",".join(dict.fromkeys(XBOARD_VARIANTS))}" done=1'
                )
            elif command == "new":
                board, force, engine_side = chess.Board(), False, chess.BLACK
            elif command == "variant":
                chess960 = rest == "fischerandom"
                board = board_for("chess" if chess960 else rest, chess960=chess960)
            elif command == "setboard":
                board = type(board)(rest, chess960=board.chess960)
            elif command in ("force", "result"):
                force = True
            elif command == "quit":
                return
            elif command == "ping":
                say(f"pong {rest}")
            elif command in ("post", "nopost"):
                post = command == "post"
            elif command in ("undo", "remove"):
                for _ in range(1 if command == "undo" else 2):
                    board.pop()
            elif command == "playother":
                force, engine_side = False, not board.turn
            elif command == "usermove":
                try:
                    board.push_xboard(rest)
                except ValueError:
                    say(f"Illegal move: {rest}")
                    continue
                if not force and board.turn == engine_side:
                    xboard_move(engine, board, post)
            elif command == "go":
                force, engine_side = False, board.turn
                xboard_move(engine, board, post)
            # The clock (level, st, sd, time, otim), easy/hard, random, computer, name, accepted,
            # rejected… change nothing for an engine that answers at once.
        except (ValueError, IndexError) as exc:
            say(f"Error ({exc}): {line.strip()}")


def xboard_move(engine: Engine, board: chess.Board, post: bool) -> None:
    """Move (or claim the result, or misbehave) when it is the engine's turn."""
    outcome = board.outcome()
    if outcome:
        say(f"{outcome.result()} {{{outcome.termination.name.lower()}}}")
    elif engine.fault == "false-claim" and len(board.move_stack) >= 2 * engine.after:
        say("1-0 {White mates}" if board.turn == chess.WHITE else "0-1 {Black mates}")
    elif reply := engine.reply(board, board.xboard):
        if post:
            say(f"1 {reply.score} {round(reply.seconds * 100)} {reply.nodes} {reply.text}")
        say(f"move {reply.text}")
        if reply.move:
            board.push(reply.move)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="A tiny UCI/XBoard chess engine for demos and tests.",
        epilog="faults: " + "; ".join(f"{name}: {what}" for name, what in FAULTS.items()),
    )
    parser.add_argument("--protocol", choices=("uci", "xboard"), default="uci")
    parser.add_argument("--style", choices=("random", "greedy"), default="random")
    parser.add_argument("--seed", type=int, default=None, help="seed for reproducible moves")
    parser.add_argument("--score", type=int, default=None, help="report this score (cp) for every move")
    parser.add_argument("--fault", choices=FAULTS, default=None, help="misbehave (see below)")
    parser.add_argument("--after", type=int, default=3, help="moves before a mid-game fault strikes (3)")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per move with --fault slow (1.0)")
    parser.add_argument("--info-string", default=None, metavar="TEXT", help="UCI: send 'info string TEXT' each move")
    parser.add_argument(
        "--optimum", action="append", default=[], type=_optimum, metavar="NAME=VALUE",
        help="UCI: a spin option whose best value is VALUE: the further from it, the sooner a score of -1000",
    )
    parser.add_argument("--horizon", type=int, default=50, help="with --optimum: the move of collapse at the optimum")
    parser.add_argument(
        "--jitter", type=int, default=0, metavar="N",
        help="with --optimum: add -N..N to the distance, drawn from the game's starting position (a base's noise)",
    )
    options = parser.parse_args(argv)
    if options.fault == "false-claim" and options.protocol != "xboard":
        parser.error("--fault false-claim needs --protocol xboard: UCI has no way to claim a result")
    if options.fault in ("no-move", "bare-bestmove") and options.protocol != "uci":
        parser.error(f"--fault {options.fault} needs --protocol uci: 'bestmove' is UCI's word")
    return options


def _optimum(text: str) -> tuple[str, int]:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, int(value)


def main(argv: list[str] | None = None) -> None:
    options = parse_args(argv)
    if options.fault == "crash-start":
        sys.exit("pyengine: crashing at start-up (--fault crash-start)")
    # The manager stops us with quit or by closing stdin; a Ctrl-C meant for it must not kill us first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if options.fault == "no-handshake":
            for _ in sys.stdin:
                pass
        else:
            (uci if options.protocol == "uci" else xboard)(Engine(options), sys.stdin)
    except BrokenPipeError:
        os._exit(0)  # the manager has gone away; nothing left to tell it


if __name__ == "__main__":
    main()
