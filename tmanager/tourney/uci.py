"""UCI engines for the game runner: python-chess's UCI protocol with a move request that costs the same at every ply.

python-chess 1.11.2's :meth:`chess.engine.UciProtocol.play` rebuilds the whole
``position`` line for every move: the FEN of the root position and the UCI text
of every move played so far; it also copies the board, defines a command class
and checks the managed options again. Against an engine that answers at once,
that is about 250 µs of CPU per move over a 150-ply game, more in longer games,
while the runner's own work per move is a fraction of it (``tools/bench_overhead.py``).

:meth:`UciEngine.play_on` asks for a move in a game that only moves forward, as
the runner plays it. It is made of python-chess's own machinery (a
:class:`~chess.engine.BaseCommand` run by :meth:`~chess.engine.Protocol.communicate`,
``send_line``, ``_go``, ``_ucinewgame``, ``_isready``, ``_setoption``,
``_next_token``, ``_parse_uci_info``) and sends the engine what ``play`` sends, except that:

1. the ``position`` line is kept and grows by the moves played since the
   engine's last turn; it is built afresh for a new game (a null move, which
   UCI cannot send, starts it again from the position after it);
2. the managed options (``UCI_AnalyseMode``, ``Ponder``, ``MultiPV``) are
   set at the start of each game, not before every move; later moves send
   ``position`` and ``go`` only;
3. ``info`` lines are parsed only when the caller asks for information,
   once the move has come, and with :data:`~chess.engine.INFO_SCORE` alone only
   back to the last line with a score (python-chess parses every line as it
   comes: about 20 µs a line, and Stockfish sends ten a move at 1000 nodes);
4. ``bestmove`` is checked against the caller's board, which is not copied;
5. ``position`` and ``go`` go out in one write, so the engine wakes once;
6. while a move is awaited without information asked for, ``info`` lines are
   dropped as they are read, before python-chess splits, decodes, logs and
   dispatches them one by one (not while engine lines are logged): Stockfish
   writes about ten a move, each read on its own.

It knows nothing of pondering: a pondering engine plays through ``play``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import typing
from collections.abc import Iterator

import chess
import chess.engine
from chess.engine import BaseCommand, CommandState, Info, InfoDict, Limit, PlayResult

LOGGER = logging.getLogger(__name__)


class UciEngine(chess.engine.UciProtocol):
    """``chess.engine.UciProtocol`` with :meth:`play_on` (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        # The position line last sent: its game, its text, the ply it starts from and the ply it reaches.
        self._sent_game: object = None
        self._sent_line = ""
        self._line_start = 0
        self._sent_plies = 0
        self._held: list[str] | None = None  # lines to send in one write (see _together)
        #: With ``keep_lines``, every line the engine wrote while it searched its last move, bestmove aside.
        self.search_lines: list[str] = []

    async def play_on(
        self, board: chess.Board, limit: Limit, *, game: object, info: Info, keep_lines: bool = False
    ) -> PlayResult:
        """The engine's move in ``board``, as ``play(board, limit, game=game, info=info)`` gives it.

        Within one ``game``, ``board`` must be the board of the previous call with
        moves pushed since (a shorter one starts the position line afresh). With
        ``info=INFO_SCORE`` the score is the one ``play`` gives, other fields come
        only from the lines read back to it. With ``keep_lines``, :attr:`search_lines`
        holds the engine's lines of this search afterwards (its PVs are checked, its
        ``info string``s quoted in the PGN).
        """
        return await self.communicate(
            functools.partial(_PlayOn, board=board, limit=limit, game=game, info=info, keep_lines=keep_lines)
        )

    async def new_game(self, game: object) -> None:
        """Start ``game`` before its first move: ``ucinewgame`` with the managed options, and wait for
        ``readyok``, so that the engine's preparation for a new game is not charged to its clock.
        :meth:`play_on` with the same ``game`` then sends ``position`` and ``go`` only."""
        await self.communicate(functools.partial(_NewGame, game=game))

    def adopt_game(self, game: object) -> None:
        """Make ``game`` the one the last :meth:`new_game` began, before it was known which game came
        next: :meth:`play_on` then plays it without another ``ucinewgame``."""
        self.game = game

    def _start_game(self, game: object) -> None:
        """``ucinewgame`` with the managed options set as ``play`` sets them for a move without pondering."""
        self.game = game
        if "UCI_AnalyseMode" in self.options and "UCI_AnalyseMode" not in self.target_config:
            self._setoption("UCI_AnalyseMode", False)
        if "Ponder" in self.options:
            self._setoption("Ponder", False)
        if "MultiPV" in self.options:
            self._setoption("MultiPV", self.options["MultiPV"].default)
        self._ucinewgame()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        command = self.command
        if (
            fd == 1
            and isinstance(command, _PlayOn)
            and isinstance(data, bytes)
            and not self.buffer[1]  # no line begun in an earlier read
            and not chess.engine.LOGGER.isEnabledFor(logging.DEBUG)
        ):
            data = command.wanted_lines(data)
            if not data:
                return
        super().pipe_data_received(fd, data)

    def send_line(self, line: str) -> None:
        if self._held is None:
            super().send_line(line)
        else:
            self._held.append(line)

    @contextlib.contextmanager
    def _together(self) -> Iterator[None]:
        """Send the lines given meanwhile in one write, logged one by one as python-chess logs them:
        ``position`` and ``go`` then wake the engine once, in one system call instead of two."""
        self._held = []
        try:
            yield
        finally:
            lines, self._held = self._held, None
            for line in lines:
                chess.engine.LOGGER.debug("%s: << %s", self, line)
            if lines:
                assert self.transport is not None, "cannot send lines before the connection is made"
                # Duck-typed as python-chess's send_line does: uvloop's pipe transports are no
                # subclasses of asyncio.WriteTransport.
                stdin = typing.cast(asyncio.WriteTransport, self.transport.get_pipe_transport(0))
                stdin.write("".join(f"{line}\n" for line in lines).encode())

    def _position_line(self, board: chess.Board, game: object) -> str:
        """The ``position`` command for ``board``: the last one sent, with the moves since appended."""
        stack = board.move_stack
        if game is not self._sent_game or len(stack) < self._sent_plies:
            self._restart_line(board, game)
        new = stack[self._sent_plies :]
        if not all(new):
            self._restart_line(board, game)
            new = []
        if new:
            self._sent_line += (" " if self._sent_plies > self._line_start else " moves ") + " ".join(
                move.uci() for move in new
            )
            self._sent_plies = len(stack)
        return self._sent_line

    def _restart_line(self, board: chess.Board, game: object) -> None:
        """Start the line at ``position startpos`` or ``position fen …`` of the board's root, setting the
        variant options as python-chess does; at the current position if the history holds a null
        move, which UCI cannot send."""
        uci_variant = type(board).uci_variant
        if "UCI_Variant" in self.options:
            self._setoption("UCI_Variant", uci_variant)
        elif uci_variant != "chess":
            raise chess.engine.EngineError("engine does not support UCI_Variant")
        if "UCI_Chess960" in self.options:
            self._setoption("UCI_Chess960", board.chess960)
        elif board.chess960:
            raise chess.engine.EngineError("engine does not support UCI_Chess960")
        whole_history = all(board.move_stack)
        root = board.root() if whole_history else board
        fen = root.fen(shredder=board.chess960, en_passant="fen")
        standard = uci_variant == "chess" and fen == chess.STARTING_FEN
        self._sent_game = game
        self._sent_line = "position startpos" if standard else f"position fen {fen}"
        self._line_start = self._sent_plies = 0 if whole_history else len(board.move_stack)


class _PlayOn(BaseCommand[PlayResult]):
    """One move request of :meth:`UciEngine.play_on`."""

    def __init__(
        self, engine: UciEngine, *, board: chess.Board, limit: Limit, game: object, info: Info,
        keep_lines: bool = False,
    ) -> None:
        super().__init__(engine)
        self.engine = engine
        self.board = board
        self.limit = limit
        self.game = game
        self.selector = info
        self.info_lines: list[str] = []
        self.kept: list[str] | None = [] if keep_lines else None
        self.awaiting_ready = False

    def start(self) -> None:
        engine = self.engine
        if engine.first_game or engine.game is not self.game:
            engine._start_game(self.game)
            self.awaiting_ready = True
            engine._isready()
        else:
            self._go()

    def _go(self) -> None:
        with self.engine._together():
            self.engine.send_line(self.engine._position_line(self.board, self.game))
            self.engine._go(self.limit)

    def wanted_lines(self, data: bytes) -> bytes:
        """``data``, whole lines as the engine wrote them, without the ``info`` lines when no information
        is asked for (see the module docstring, 6.); unchanged when it ends within a line."""
        if self.selector or self.kept is not None or not (data.startswith(b"info") and data.endswith(b"\n")):
            return data
        if data.count(b"\n") == 1:  # one line, the read an engine mostly makes: no split, no join
            return b"" if _is_report(data[:-1]) else data
        lines = data.split(b"\n")[:-1]
        kept = [line for line in lines if not _is_report(line)]
        return data if len(kept) == len(lines) else b"".join(line + b"\n" for line in kept)

    def line_received(self, line: str) -> None:
        token, rest = chess.engine._next_token(line)
        if self.kept is not None and token != "bestmove" and not self.awaiting_ready:
            self.kept.append(line)
        if token == "info":
            if self.selector:
                self.info_lines.append(rest)
        elif token == "bestmove":
            self._bestmove(rest)
        elif token == "readyok" and self.awaiting_ready:
            self.awaiting_ready = False
            if self.state == CommandState.CANCELLING:
                self.set_finished()
            else:
                self._go()
        else:
            LOGGER.warning("%s: Unexpected engine output: %r", self.engine, line)

    def _bestmove(self, arg: str) -> None:
        if not self.result.cancelled():
            words = arg.split()
            move = None
            if words and words[0] not in ("(none)", "NULL"):
                try:
                    move = self.board.parse_uci(words[0].lower())  # AnMon 5.75 promotes to upper case
                except ValueError as exc:
                    raise chess.engine.EngineError(exc) from None
            if self.kept is not None:
                self.engine.search_lines = self.kept
            self.result.set_result(PlayResult(move, None, self._info()))
        self.set_finished()

    def _info(self) -> InfoDict:
        """What the info lines say, a later line's value winning as in python-chess's ``play``."""
        parsed: list[InfoDict] = []
        for line in reversed(self.info_lines):
            parsed.append(chess.engine._parse_uci_info(line, self.board, self.selector))
            if self.selector == chess.engine.INFO_SCORE and "score" in parsed[-1]:
                break
        info: InfoDict = {}
        for part in reversed(parsed):
            info.update(part)
        return info

    def cancel(self) -> None:
        if not self.awaiting_ready:
            self.engine.send_line("stop")


def _is_report(line: bytes) -> bool:
    """Whether ``line`` (without its newline) is an ``info`` line."""
    return line.startswith((b"info ", b"info\t")) or line == b"info"


class _NewGame(BaseCommand[None]):
    """:meth:`UciEngine.new_game`: ``ucinewgame`` (and the managed options), then ``isready`` and its answer."""

    def __init__(self, engine: UciEngine, *, game: object) -> None:
        super().__init__(engine)
        self.engine = engine
        self.game = game

    def start(self) -> None:
        self.engine._start_game(self.game)
        self.engine._isready()

    def line_received(self, line: str) -> None:
        if line.strip() == "readyok":
            if not self.result.done():
                self.result.set_result(None)
            self.set_finished()
        elif not line.startswith("info"):
            LOGGER.warning("%s: Unexpected engine output: %r", self.engine, line)
