#!/usr/bin/env python3
"""sleeper: a UCI engine that thinks by sleeping, so that hundreds of games run at once on a few cores.

It answers ``go`` by sleeping (``movetime``; under a clock, a share of its time:
a thirtieth, or its time over ``movestogo``, plus nine tenths of its increment,
never more than half of what is left), then plays the next move of one fixed
legal game of 1,200 plies (:data:`GAME`, checked by ``tests/integration/test_sleeper.py``),
in which no rule ends the game. It plays only positions of that game: from the
start position, or after any prefix of it given as an opening, either as the
moves from the start position or as the FEN of the position they reach (the
FEN's move counters say which ply of the game it is). ``stop`` ends
its sleep at once; ``go infinite`` sleeps until ``stop``.

It imports nothing but the standard library's ``os``, ``select``, ``sys`` and
``time`` (run it with ``python3 -S -I`` for the smallest process), so hundreds
of them fit in little memory and start quickly.

``--start-delay S`` sleeps S seconds before it reads its first command, and
``--quit-delay S`` before it ends on ``quit`` (an engine that saves what it
learnt as it quits; its log is written after that sleep).
``--log DIR`` writes, at each new game and when it quits, one line per move to
``DIR/PID.log``: ``NAME OPENING PLY GO BESTMOVE``: the ``--name`` it was given,
the opening, told by the ply of the game's first ``go`` halved (games that start
from prefixes of even lengths 2, 4, 6, … are told apart), the ply (half-moves
from the start position), and the times it read ``go`` and wrote ``bestmove``
in nanoseconds of ``CLOCK_MONOTONIC``, which all processes of a host share. So
``tools/bench_concurrency.py`` pairs one engine's ``bestmove`` with its
opponent's next ``go``: same opening, next ply, other name.
"""

from __future__ import annotations

import itertools
import os
import select
import sys
import time

#: One legal game in which no rule ends the game (no mate, stalemate, lack of material,
#: fifty moves or repeated position) before its last move.
GAME = (  # noqa: SIM905 - the moves as text, split once: less to compile at every start
    "g1h3 g8h6 b1a3 h6f5 h3g5 f5h4 g5e4 h4f5 e4c5 f5d6 c5e4 b8c6 e4c3 c6b4 a3b1 h8g8 c3b5 g8h8 h1g1 "
    "b4c6 b5a3 c6a5 a3b5 h8g8 g1h1 d6e4 b5c3 e4g5 b1a3 g5e6 c3b5 e6d4 b5d6 c7d6 h1g1 d4e6 a3c4 e6f4 "
    "c4b6 a5b3 g1h1 a8b8 a1b1 f4h5 b6c4 h5g3 h1g1 g8h8 c4e5 g3h1 b1a1 h1g3 g1h1 d8b6 e5d3 b6d4 h1g1 "
    "b8a8 d3b4 g3f5 b4a6 d4c4 a6b4 e8d8 b4d3 b3c5 a1b1 c4e6 g1h1 e6h6 b1a1 f5e3 h1g1 e3d5 a1b1 h6f4 "
    "d3e5 f4g5 e5d3 h8g8 g1h1 g5f4 d3e5 d8e8 e5c4 f4f5 h1g1 d5f4 c4a5 f5e6 a5c4 e6e5 c4a3 c5e6 c2c3 "
    "e5a5 d1a4 e6d4 a3c2 a5b5 c2e3 f4e6 a4b4 b5b6 b4a3 b6a6 e3f5 e6g5 f5h6 d4e6 h6f5 e6c5 f5g3 a8b8 "
    "a3b4 g5h3 e1d1 b8a8 d1e1 h3f4 g1h1 a6a5 b4b6 a5b4 e1d1 f4g6 g3f5 b4g4 b6c6 e8d8 b1a1 g6h8 c6f3 "
    "c5b3 f3e4 d8e8 e4b4 g4g3 d1c2 b3a5 b4b3 g3h3 b3b5 h8g6 b5c5 a5c4 f5h4 h3g4 h1g1 c4a5 a1b1 a8b8 "
    "c5b6 g6h8 b6b4 f7f5 b4a4 g4f4 h4g6 b8a8 a4a3 h8f7 a3a4 f4c4 a4b4 f7h8 b4a3 c4e6 a3c5 e6f7 c2d1 "
    "a5b3 g6f4 f7d5 c5b4 d5c5 b4a4 c5b5 a4a6 b5c4 f4e6 c4d5 a6c4 b3a1 e6c7 e8f7 c4a6 d5a5 c7d5 a5a4 "
    "d1e1 a4d4 g1h1 f7g6 a6c4 d4e3 c4a6 e3d3 e1d1 d3c4 a6c6 g6g5 c6c5 c4a4 d1e1 g5h5 c5c4 a1b3 d5c7 "
    "h5h6 c7e6 h8f7 e6c7 b3c5 c4g4 a4f4 g2g3 f4b4 c7e6 f7e5 b1a1 c5d3 e1d1 b4e4 d1c2 e5f3 e6f4 d3e5 "
    "c2b3 e5g6 f4d5 g6f4 d5c7 f4e6 c7e8 e6g5 h1g1 g5f7 e8c7 f7h8 g1g2 e4e6 g4c4 f3h4 g2g1 e6e3 a1b1 "
    "e3e5 c7e6 h4f3 c4a4 e5e4 a4d4 h6g6 d4e3 h8f7 g1h1 f3d4 b3a3 e4f4 h1g1 g6f6 e3f3 d4b3 e6g5 f6e5 "
    "f1h3 f4c4 f3e4 e5f6 g1e1 c4e6 e4f3 a8b8 a3b4 f7h8 f3d5 f5f4 h3f5 e6e5 b4b5 e5e3 d5f3 e3d4 f5h3 "
    "b3c5 e1g1 b8a8 g1e1 f6e5 f3e4 e5f6 e4c2 a8b8 b1a1 h8f7 h3g2 c5b3 c2g6 f6e5 g6e4 e5f6 e4d5 d4d3 "
    "d5c4 d3c2 c4a4 f7h6 e1g1 b3d4 b5a5 d4b3 a5b4 b8a8 b4c4 c2b1 g5e4 f6g6 e4g5 b1c2 a4b4 c2f5 a1b1 "
    "b3a1 b4a4 f5c5 c4d3 g6f6 a4d4 f6f5 g2h3 f5g6 h3g4 h6f5 g5f7 f5h4 g4f3 c5f5 e2e4 f5c5 d4e5 c5d5 "
    "e5d4 a1b3 f3e2 d5a5 d4d5 b3a1 d5f5 h4f5 e2f1 a5d5 d3e2 a1c2 f1h3 c2e1 e2f1 f5h6 f7g5 d5f5 g5f7 "
    "h6g4 f7d8 f5e5 d8c6 g4e3 f1e2 e1c2 g1e1 e3c4 h3f5 g6f6 e1h1 e5b5 e2f3 b5e5 h1e1 c2b4 c6d4 g8h8 "
    "f3g4 f6f7 e1e3 e5b5 d4c6 c4e5 g4g5 h8g8 e3e2 e5c4 b1a1 b5c5 c6e5 f7e8 e5f3 e8d8 g5h4 c5b5 e2e3 "
    "b4c2 e3e1 b5b6 f3d4 b6a5 e1h1 a5a3 d4c6 d8e8 h4h3 g8h8 d2d3 c4e3 h3h4 a8b8 h1f1 a3a6 f5e6 c2a3 "
    "e6c4 e3d1 c4d5 a6b5 c6d8 b5a6 d5b3 a3b5 a1b1 b8a8 f1g1 h8g8 b3f7 e8d8 h4g5 b5a3 f7g6 a6a4 g5h5 "
    "a3c2 h5h4 a4c4 g6f7 c2d4 f7d5 c4c5 h4h3 d4c2 d5c6 c5f5 h3g2 c2b4 g2f1 f5g4 c1e3 g4h3 g1g2 h3h4 "
    "e3c1 h4f6 f1e2 f6f5 e2e1 f5g4 c6a4 g8h8 g2g1 d8e8 a4b3 g4f5 e1d2 f5d5 b1a1 d5g8 b3c2 d1e3 g1f1 "
    "e3c4 d2e1 c4e5 c2b1 g8d5 c1d2 b4c2 e1d1 c2b4 d2c1 d5a5 b1c2 a8b8 a1b1 e5c6 d1d2 a5c5 b2b3 h8g8 "
    "d2e2 c5f5 e2d2 f5e5 f1d1 e8d8 b1a1 b8a8 d2e1 b4d5 d1d2 d5b6 c2d1 e5f6 d2c2 f6e6 e1e2 e6f6 c2d2 "
    "f6h6 d1c2 a8b8 a1b1 c6a5 c2d1 h6h5 e2f1 h5b5 c1a3 b6c4 d1e2 b5f5 e2f3 f5e6 d2e2 b8a8 b1b2 c4e3 "
    "f1e1 e3f1 f3h1 e6f7 a3b4 a5c6 e2c2 f7f5 b4a5 d8e8 e1e2 c6b8 h1f3 f1e3 f3h5 f5g6 c2d2 b8a6 e2f3 "
    "g6f7 d2c2 h7h6 a5b4 a6c5 h5g4 e3c4 b2b1 c4a3 b1e1 f7e6 c2d2 e6f6 e1b1 f6f5 g4h3 a8b8 b1b2 f5h7 "
    "h3f5 c5e6 f3g4 e8d8 d2d1 e6g5 b2e2 g5h3 g4h5 b8a8 d1c1 d8e8 c1h1 h7h8 e2c2 h8h7 f5g4 a3b1 h1c1 "
    "h3g5 g4d1 h7h8 c2b2 g5f7 b4c5 b1a3 b2c2 a3b1 d1e2 f7d8 c1d1 d8c6 c5e3 b1a3 h5g6 c6d8 e3c1 d8f7 "
    "d1h1 a3b5 c2b2 f7e5 g6h5 b5a3 b3b4 e5c6 b2c2 a3b5 h1g1 b5c7 c1a3 h8h7 g1f1 h7f5 h5h4 a8b8 f1h1 "
    "e8d8 e2g4 c6d4 h1a1 c7a8 a1e1 f5b5 h4h3 a8b6 e1e3 b6a4 c2e2 a4b2 e3f3 b5e5 e2d2 e5f6 d2e2 d4c2 "
    "e2d2 c2e3 g4h5 g8h8 h5g4 b8a8 g4h5 b2a4 d2d1 e3g4 h3g2 a4b2 d1h1 d8c7 g2g1 f6g6 f3e3 g6g5 h5e8 "
    "g4e5 e3f3 a8b8 e8g6 g5f5 g1g2 f5g5 g6f5 e5f7 h1b1 b7b5 b1d1 b8b6 g2h3 g5h5 h3g2 b6c6 f5h3 c6c4 "
    "d1c1 c7b8 c1f1 h5e5 f1d1 c4d4 h3e6 c8a6 e6c4 e5f5 d1d2 f7e5 c4b3 b2d1 a3b2 e5g4 b2c1 g4f6 b3c4 "
    "b8c7 c4g8 d1e3 g2h1 d4d5 h1g1 e3d1 d2e2 f5h7 e2c2 c7b6 c1e3 d5c5 g8b3 d1b2 e3d2 c5h5 b3a4 h5d5 "
    "g1f1 a6b7 f1e2 d5d4 f3e3 b7a8 e2f1 d4c4 f1e1 a8d5 c2c1 b6c6 c1b1 c6b6 g3g4 h7f5 e3g3 b6c7 g3g1 "
    "f6e8 d2e3 d5e6 b1d1 f5d5 e3d4 c7c8 d4c5 e6f7 e1e2 f7e6 c5e3 d5c6 e3c5 c6a8 g1e1 c8b8 c5e3 a8b7 "
    "e3c5 e8c7 a4b3 b7d5 c5e3 b8c8 e2d2 d5g5 e1f1 c7a6 f1e1 g5h5 e3b6 h5d5 b6a5 e6g8 e1h1 h8h7 d1c1 "
    "d5e6 c1g1 c4d4 a5b6 b2a4 d2c1 a4c5 b3a4 e6b3 g1f1 d4d5 f1g1 d5g5 b6c7 b3e6 c7d8 e6e5 c1d1 h6h5 "
    "a4c2 a6c7 c2b1 h7h8 d1e1 c7e8 g1f1 e5f5 d8a5 g5g6 b1c2 g8h7 a5d8 c5b3 e1e2 e8f6 d8c7 g6h6 c7b8 "
    "h7g6 f1c1 h8g8 c1g1 g6f7 c2b1 f5g6 g1g2 g6h7 g2g1 f6d5 e2f1 f7g6 f1e1 b3d2 b8c7 d2b3 c7a5 g6f5 "
    "e1f1 h7h8 g1g2 b3d4 h1g1 d5c7 f1e1 h6h7 g2g3 d4f3 e1d1 f5g6 g1g2 g6f5 d1c1 f5e6 g2g1 c7a8 g1d1 "
    "f3d2 a5d8 e6f5 h2h3 a8b6 g3f3 b6d5 b1c2 d2f1 d8a5 f1d2 a5b6 d5f6 b6c7 d2b1 d1g1 f6e8 c1b2 c8b7 "
    "b2b3 b1d2 b3a3 d2b1 a3b2 b7a8 c2b3 h7h6 g1f1 f5e6 b3d1 b1a3 d1a4 e6f5 f1a1 f5g6 a1g1 g6f5 g1c1 "
    "h6g6 c7a5 a3c4 b2c2 c4b6 c2b1 e8c7 a4d1 c7a6 b1c2 h8h6 c2d2 g6g5 d1e2 h6f6 c1g1 b6c8 d2e1 f6h6 "
    "e1d1 a6c5 g1h1 g8h8 a5b6 f5e6 h1e1 a7a5 b6d8 e6d5 d1c1 h6h7 e1h1 h7g6 d8b6 c8a7 f3e3 g6e8 c1b1 "
    "g5f5 h1h2 f5g5 b6c7 h8h6 c7b8 d5f7 e2f3 a7c8 f3g2 h6h7 e3f3 h7h8 g2f1 f7g6 f3g3 g6f7 f1g2 e8d8 "
    "h2h1 f7e8 g2f1 e8f7 b8a7 c5a4 a7b8 a4b6 b1c1 f7e8 b8a7 d8c7 g3g1 a8b7 c1b2 b6c4 b2c1 h8g8 a7d4 "
    "g5c5 f1e2 c7b6 h1h2 b7a8 g1h1 b6b8 d4f6 c8b6 c1c2 c5e5 a2a3 c4b2 h1b1 e5f5 f6e5 b8b7 c2c1 a8a7 "
    "h2g2 a7a8 e2d1 b7c6 c1c2 b6c4 g2g1 c6c7 c2c1 c4e3 d1c2 e8g6 g1g3 g6e8 c2d1 c7c4 e5f6 c4e6 d1c2 "
    "e6e5 f6g5 e3d1 b1a1 e5e6 g3f3 a8b8 a1a2 e6g6 f3g3 g6e6 a2a1 e6f7 g3e3 f7d5 e3e1 b8a8 a1b1 a8b8 "
    "e1e2 b8a8 c2a4 d5e6 c1c2 e8f7 g5h4 a8b8 e2e1 f5e5 h4g5 e6c4 a4b3 b8c8 b3a4 g7g6 c2c1 c4c7 c1d2 "
    "c8d8 d2c2 e5d5 b1a1 f7e8 e1e3 g8g7 g5f6 c7c5 e3e2 d8c7 e2d2 g7f7 d2e2 d5g5 e2e3 c5f5 e3e1 d1e3 "
    "c2b1 c7b7 a4d1 b7b6 f6e5 e3c2 d1e2 c2e3 e5f6 f8h6 a1a2 f5e6 e2d1 e6b3 f6h8 b2c4 a2b2 e3f1 h8g7 "
    "c4d2 b1a1 g5f5 g7e5 d2b1 b2e2 f7g7 e2d2 b3f7 e1e3 f5f6 d1a4 g7g8 d2a2 h6f8 a4b3 f1g3 b3a4 g8h8 "
    "g4g5 f7c4 e3e2 b6c7 a2c2 h8g8 a1b2 f6f5 e5d4 c7c6 d4g7 g3h1 g7f6 b1d2 b2c1 d2f1 c1b2 c4e6 e2e3 "
    "c6c7 b2b1 e6a2 b1c1 f5d5 f6h8 c7b8 c2d2 a2c2 a4c2 f8g7 c2b3 h1g3 b3d1 g7e5 d1a4 b8a7 h8g7 g3e2 "
    "c1d1 f1g3 d2a2 a7a6 a2d2 e5f6 g7h8 d5e5 e3f3 g8f8 h8g7 e8f7 a4c2 e5e6 c2b1 g3f5 d2c2 f8g8 c2c1 "
    "f5h4 d1d2 g8c8 b1c2 c8c5 c1b1 e2c1 g7h6 c5c6 c2d1 f6g7 f3g3 h4f5 d1f3 c6c5 d2e1 g7f6 e1f1 c5c8 "
    "b1a1 c8c7 f3h1 f6d4 a1a2 f5h4 a2e2 d4a7 e2a2 f7e8 a2b2 a6b6 f1g1 a5a4 b2a2 c7c4 g3g4 c4c8 a2b2 "
    "b6a6 b2e2 h4g2 "
).split()


class Sleeper:
    """Reads commands from stdin, answers on stdout; sleeps while it thinks, still listening."""

    def __init__(self, log_dir: str | None, name: str, quit_delay: float = 0.0) -> None:
        self.log_path = os.path.join(log_dir, f"{os.getpid()}.log") if log_dir else None
        self.name = name
        self.quit_delay = quit_delay
        self.stamps: list[str] = []
        self.pending = b""
        self.queue: list[str] = []  # lines read but not yet obeyed, the next one last
        self.last = ""
        self.ply = 0
        self.valid = True
        self.opening: int | None = None  # the ply of this game's first go, halved

    def line(self, timeout: float | None) -> str | None:
        """The next line, if one arrives within ``timeout`` seconds (``None``: wait for it)."""
        while not self.queue:
            ready, _, _ = select.select([0], [], [], timeout)
            if not ready:
                return None
            data = os.read(0, 65536)
            if not data:
                raise EOFError
            *complete, self.pending = (self.pending + data).split(b"\n")
            self.queue.extend(line.decode() for line in reversed(complete))
        return self.queue.pop()

    def say(self, text: str) -> None:
        os.write(1, (text + "\n").encode())

    def flush(self) -> None:
        if self.log_path and self.stamps:
            with open(self.log_path, "a") as log:
                log.write("".join(self.stamps))
            self.stamps = []

    def run(self) -> None:
        try:
            while self.command(self.line(None) or ""):
                pass
            time.sleep(self.quit_delay)  # told to quit (not a closed pipe)
        except (EOFError, KeyboardInterrupt):
            pass
        finally:
            self.flush()

    def command(self, line: str) -> bool:
        """Obey one line; ``False`` for ``quit``."""
        words = line.split()
        if not words:
            return True
        if words[0] == "uci":
            self.say("id name sleeper\nid author tmanager\nuciok")
        elif words[0] == "isready":
            self.say("readyok")
        elif words[0] == "ucinewgame":
            self.opening = None
            self.flush()
        elif words[0] == "position":
            self.position(words)
        elif words[0] == "go":
            return self.go(words, time.monotonic_ns())
        elif words[0] == "quit":
            return False
        return True

    def position(self, words: list[str]) -> None:
        played = words[words.index("moves") + 1 :] if "moves" in words else []
        start = self.start_ply(words)
        ply = (start or 0) + len(played)
        if ply < self.ply:
            self.opening = None  # a new game without ucinewgame
        self.ply = ply
        self.valid = start is not None and ply < len(GAME) and (not played or played[-1] == GAME[ply - 1])

    @staticmethod
    def start_ply(words: list[str]) -> int | None:
        """The ply of its game that ``position`` starts from: 0 for ``startpos``; for a FEN, the ply its move
        counters give (it takes any FEN for a position of its game); ``None`` for what it cannot read."""
        if words[1:2] == ["startpos"]:
            return 0
        fen = words[2:8]
        if words[1:2] != ["fen"] or len(fen) < 6 or not fen[5].isdigit():
            return None
        return 2 * (int(fen[5]) - 1) + (fen[1] == "b")

    def go(self, words: list[str], started: int) -> bool:
        if self.opening is None:
            self.opening = self.ply // 2
        think = self.think_time(words)
        deadline = time.monotonic() + think if think is not None else None
        running = True
        later: list[str] = []  # commands that must wait for the move (a GUI that does not wait)
        while running:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            self.last = self.line(left) or ""
            word = self.last.split()[:1]
            if word == ["stop"]:
                deadline = time.monotonic()
            elif word == ["quit"]:
                running = False
            elif word == ["isready"]:
                self.say("readyok")
            elif word:
                later.append(self.last)
        self.queue.extend(reversed(later))
        move = GAME[self.ply] if self.valid else "0000"
        answered = time.monotonic_ns()
        self.say(f"info depth 1 score cp 0 nodes 1 pv {move}\nbestmove {move}")
        if self.log_path:
            self.stamps.append(f"{self.name} {self.opening} {self.ply} {started} {answered}\n")
        return running

    def think_time(self, words: list[str]) -> float | None:
        """Seconds to sleep for ``go`` with ``words``; ``None``: until ``stop``."""
        values = {key: int(value) for key, value in itertools.pairwise(words)
                  if value.lstrip("-").isdigit()}
        if "infinite" in words:
            return None
        if "movetime" in values:
            return values["movetime"] / 1000
        white = self.ply % 2 == 0
        own = values.get("wtime" if white else "btime")
        if own is None:
            return 0.0
        increment = values.get("winc" if white else "binc", 0)
        share = own / values.get("movestogo", 30) + increment * 0.9
        return max(0.0, min(share, own / 2)) / 1000


def main() -> None:
    args = sys.argv[1:]
    log_dir = args[args.index("--log") + 1] if "--log" in args else None
    name = args[args.index("--name") + 1] if "--name" in args else "sleeper"
    if "--start-delay" in args:  # a slow start (a big binary, network tables): tests of start-up storms
        time.sleep(float(args[args.index("--start-delay") + 1]))
    quit_delay = float(args[args.index("--quit-delay") + 1]) if "--quit-delay" in args else 0.0
    Sleeper(log_dir, name, quit_delay).run()


if __name__ == "__main__":
    main()
