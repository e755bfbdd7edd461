"""XBoard engines the way XBoard runs them: python-chess's XBoard protocol, made tolerant.

python-chess 1.11.2 (``chess.engine.XBoardProtocol``) refuses engines that do
not declare ``setboard`` and ``ping``, and its start-up waits for ever on an
engine that says ``feature done=0`` and never ``done=1``. XBoard itself runs
such engines. :class:`XBoardEngine` is python-chess's protocol with these
deviations, each one what XBoard (``backend.c``) does in the same situation:

1. **Feature negotiation** (:meth:`XBoardEngine.initialize`). After
   ``xboard`` / ``protover 2`` it waits for ``done=1`` at most
   :attr:`~XBoardEngine.feature_timeout` seconds, or
   :attr:`~XBoardEngine.done0_timeout` once the engine said ``done=0``; then
   it goes on with what it has (XBoard: 10 s, and one hour after ``done=0``).
   Until the engine sends its first ``feature``, ``protover 2`` is sent again
   after :attr:`~XBoardEngine.resend_interval` seconds, then after twice as
   long each time (XBoard sends it once): GNU Chess 6.2.7 may discard what
   came with the first line it read (see the end of this docstring).
   ``setboard`` and ``ping`` are not required. Error replies during the
   negotiation (a protocol-1 engine answering ``protover``) are ignored.
   Features the engine declares later, at any time, still count, and a second
   answer to ``protover`` is harmless.
   The ``features`` of the engine definition are applied on top of what the
   engine declares. ``sigterm=0`` is accepted, not rejected: nothing here
   sends SIGTERM, and HoiChess answers the rejection with a warning.
2. **No setboard**: ``setboard FEN`` becomes XBoard's ``edit`` sequence. For a
   Black-to-move position the engine first gets ``a2a3`` (it has just had
   ``new`` and ``force``), as XBoard does. ``edit`` cannot say "no castling"
   for a king and rook on their home squares; such a position is refused with
   a clear :class:`chess.engine.EngineError` rather than silently changed.
   The en-passant square and the move counters are lost, as with XBoard.
3. **No ping**: where python-chess waits for ``pong`` after the engine's
   move, the reply is taken as the synchronisation, as XBoard does: a
   ``pong`` is delivered internally right after the output already read.
4. **Moves written as** ``NUMBER ... MOVE`` (GNU Chess, old protocol-1
   engines) are read like ``move MOVE``, as XBoard reads them.
5. **Time control**: ``level`` is sent once per game (python-chess resends it
   before every move, with the mover's current clock as the base time), by
   using the ``game`` object as :attr:`chess.engine.Limit.clock_id` when the
   caller gives none. Besides being what XBoard does, this avoids
   ``level 0 0:00 INC`` when a clock falls under one second, which HoiChess
   rejects.
6. **Quit** never hangs: :meth:`XBoardEngine.quit` waits at most
   :attr:`~XBoardEngine.quit_timeout` seconds, then kills the process (its
   whole group when it leads one), and does nothing if the process is gone or
   the transport closed.

HoiChess 0.22, when its input is not a terminal, *exits with status 1 on the
first command it rejects* (it reads stdin like a script). python-chess sends
such commands: ``st`` with a fraction of a second (``Limit(time=0.5)``),
``level`` with a base of ``0:00``, ``nps`` for node limits. Item 5 removes the
one a clock-based game sends; :attr:`XBoardEngine.last_complaint` keeps the
engine's last error line so that a crash can be explained.

GNU Chess 6.2.7 (Debian 12) must be started *without* ``--xboard`` and put in
XBoard mode by the ``xboard`` command, as its definition does. Its front end
reads standard input with ``fgets`` in an input thread, and its adapter thread
calls ``setbuf(stdin, NULL)`` while starting (fixed upstream in 6.2.8, "Do not
modify stdin/stdout buffering from adapter thread"). ``fgets`` holds the lock
of ``stdin`` while it waits for input, so ``setbuf`` waits for the next input
line, and the main thread waits for the adapter: no output at all. When the
adapter gets the lock, ``setbuf`` throws away what the input thread had read
beyond its first line. With ``--xboard`` the input thread goes straight back
into ``fgets``, so the adapter rarely wins, and only input can make it try.
Without it, the input thread waits after its first line until the main thread
has handled that line, which it does only after the adapter has started:
``setbuf`` never waits, and only the rest of the first read can be lost, which
the resent ``protover 2`` (item 1) makes up for.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import re
import shlex
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO

import chess
import chess.engine
from chess.engine import BaseCommand, CommandState, ConfigMapping, Limit, Opponent, PlayResult

from tmanager.tourney.transport import popen

LOGGER = logging.getLogger(__name__)

FeatureValue = str | int | bool

#: ``12. ... e7e5`` (GNU Chess) is a move, as ``move e7e5`` is.
_NUMBERED_MOVE = re.compile(r"^\s*\d+\s*\.*\s+\.\.\.\s+(\S+)\s*$")

#: Lines an engine prints when it rejects a command.
_COMPLAINT = re.compile(r"^\s*(Error|Illegal|Invalid|tellusererror)", re.IGNORECASE)

#: Options python-chess manages itself (see ``XBoardProtocol.initialize``).
_MANAGED_OPTIONS = ("random", "computer", "cores", "memory")


class XBoardEngine(chess.engine.XBoardProtocol):
    """``chess.engine.XBoardProtocol`` for every engine XBoard can run (see the module docstring)."""

    #: Seconds to wait for ``feature done=…`` before going on without it.
    feature_timeout: float = 2.0
    #: Seconds to wait for ``done=1`` once the engine has sent ``done=0``.
    done0_timeout: float = 5.0
    #: Until the engine's first ``feature``, ``protover 2`` again after so many seconds, then
    #: after twice as long each time (GNU Chess 6.2.7 crashes when too many answers pile up).
    resend_interval: float = 0.1
    #: Seconds :meth:`quit` waits for the process to exit before killing it.
    quit_timeout: float = 2.0

    def __init__(self) -> None:
        super().__init__()
        self.assumed_features: dict[str, str | int] = {}
        self.last_complaint: str | None = None

    # --- feature negotiation -------------------------------------------------

    async def initialize(self) -> None:
        """Negotiate features as XBoard does: time out, require nothing, accept late features."""

        class Negotiation(BaseCommand[None]):
            def __init__(self, engine: XBoardEngine) -> None:
                super().__init__(engine)
                self.engine = engine

            def check_initialized(self) -> None:
                if self.engine.initialized:
                    raise chess.engine.EngineError("engine already initialized")

            def start(self) -> None:
                self.engine.send_line("xboard")
                self.engine.send_line("protover 2")
                self.timer = self.engine.loop.call_later(self.engine.feature_timeout, self.end)
                self.resend = self.engine.loop.call_later(self.engine.resend_interval, self.ask_again, 1)

            def ask_again(self, n: int) -> None:
                # GNU Chess 6.2.7 may throw away what came with its first input line (module
                # docstring); what is sent once it has read that line reaches it.
                if self.state == CommandState.ACTIVE:
                    self.engine.send_line("protover 2")
                    delay = self.engine.resend_interval * 2**n
                    self.resend = self.engine.loop.call_later(delay, self.ask_again, n + 1)

            def line_received(self, line: str) -> None:
                token, rest = _split(line)
                if token != "feature":
                    return
                self.resend.cancel()
                self.engine._declare(rest, options=True)
                done = self.engine.features.get("done")
                if done == 0:
                    self.timer.cancel()
                    self.timer = self.engine.loop.call_later(self.engine.done0_timeout, self.end)
                elif done:
                    self.end()

            def end(self) -> None:
                self.timer.cancel()
                self.resend.cancel()
                if self.state != CommandState.ACTIVE:
                    return
                if "done" not in self.engine.features:
                    LOGGER.info("%s: no feature done=1 in time, going on without it", self.engine)
                self.engine._features_settled()
                self.result.set_result(None)
                self.set_finished()

            def cancel(self) -> None:
                self.timer.cancel()
                self.resend.cancel()
                self.set_finished()

        await self.communicate(Negotiation)

    def _declare(self, arg: str, *, options: bool) -> None:
        """Record ``feature`` pairs; ``option=`` ones only while negotiating."""
        try:
            pairs = [item.split("=", 1) for item in shlex.split(arg)]
        except ValueError:
            LOGGER.warning("%s: unreadable feature line: %r", self, arg)
            return
        for pair in pairs:
            if len(pair) != 2:
                continue
            key, value = pair
            if key == "option":
                if options:
                    option = chess.engine._parse_xboard_option(value)
                    if option.name not in _MANAGED_OPTIONS:
                        self.options[option.name] = option
            else:
                try:
                    self.features[key] = int(value)
                except ValueError:
                    self.features[key] = value
        self.features.update(self.assumed_features)

    def _features_settled(self) -> None:
        """Apply the features, as python-chess does at the end of its negotiation."""
        features = self.features
        features.update(self.assumed_features)
        # The engine is reused between games, and told moves in coordinates.
        if not features.get("reuse", 1):
            LOGGER.warning("%s: rejecting feature reuse=0", self)
            self.send_line("rejected reuse")
        if features.get("san", 0):
            LOGGER.warning("%s: rejecting feature san=1", self)
            self.send_line("rejected san")
        if "myname" in features:
            self.id["name"] = str(features["myname"])
        accepted = []
        if features.get("memory"):
            self.options["memory"] = chess.engine.Option("memory", "spin", 16, 1, None, None)
            accepted.append("memory")
        if features.get("smp"):
            self.options["cores"] = chess.engine.Option("cores", "spin", 1, 1, None, None)
            accepted.append("smp")
        if features.get("egt"):
            for egt in str(features["egt"]).split(","):
                name = f"egtpath {egt}"
                self.options[name] = chess.engine.Option(name, "path", None, None, None, None)
            accepted.append("egt")
        for name in accepted:
            self.send_line(f"accepted {name}")
        for option in self.options.values():
            if option.default is not None:
                self.config[option.name] = option.default
                if not option.is_managed():
                    self.target_config[option.name] = option.default
        self.initialized = True

    # --- lines from the engine -----------------------------------------------

    def _line_received(self, line: str) -> None:
        token, rest = _split(line)
        if token == "feature" and self.initialized:
            # XBoard honours features whenever they come; commands need not see them.
            chess.engine.LOGGER.debug("%s: >> %s", self, line)
            self._declare(rest, options=False)
            return
        numbered = _NUMBERED_MOVE.match(line)
        if numbered:
            line = f"move {numbered.group(1)}"
        elif _COMPLAINT.match(line):
            self.last_complaint = line.strip()
        super()._line_received(line)

    # --- lines to the engine -------------------------------------------------

    def send_line(self, line: str) -> None:
        if self.transport is None or self.transport.is_closing():
            # Abandoned engine: the caller is closing it anyway.
            return
        if line.startswith("setboard ") and not self.features.get("setboard"):
            for edit_line in self._edit_lines(line[len("setboard ") :]):
                super().send_line(edit_line)
        else:
            super().send_line(line)

    def _edit_lines(self, fen: str) -> Iterator[str]:
        """XBoard's ``edit`` sequence for ``fen``, sent right after ``new`` and ``force``."""
        board = chess.Board(fen, chess960=True)
        implied = _home_castling_rights(board)
        if implied != board.clean_castling_rights():
            assumed = board.copy(stack=False)
            assumed.castling_rights = implied
            raise chess.engine.EngineError(
                f"engine has no setboard (feature setboard=0) and edit cannot set up {fen!r}: it would assume "
                f"castling rights {assumed.castling_xfen()} from the king and rook squares, not {board.castling_xfen()}"
            )
        if board.turn == chess.BLACK:
            # Kludge from XBoard: one white move makes Black the side to move; edit keeps it.
            yield ("usermove " if self.features.get("usermove") else "") + "a2a3"
        yield "edit"
        yield "#"
        for color in (chess.WHITE, chess.BLACK):
            if color == chess.BLACK:
                yield "c"
            for square in chess.SQUARES_180:
                piece = board.piece_at(square)
                if piece is not None and piece.color == color:
                    yield f"{piece.symbol().upper()}{chess.square_name(square)}"
        yield "."

    def _ping(self, n: int) -> None:
        if self.features.get("ping"):
            super()._ping(n)
        else:
            self.loop.call_soon(self._pong, n)

    def _pong(self, n: int) -> None:
        """Stand in for the ``pong`` of an engine without ``ping``: its move reply was the sync."""
        command = self.command
        if command is not None and command.state in (CommandState.ACTIVE, CommandState.CANCELLING):
            command._line_received(f"pong {n}")

    # --- the game ------------------------------------------------------------

    async def play(
        self,
        board: chess.Board,
        limit: Limit,
        *,
        game: object = None,
        info: chess.engine.Info = chess.engine.INFO_NONE,
        ponder: bool = False,
        draw_offered: bool = False,
        root_moves: Iterable[chess.Move] | None = None,
        options: ConfigMapping = {},  # noqa: B006 - python-chess's signature
        opponent: Opponent | None = None,
    ) -> PlayResult:
        """python-chess's ``play``, with ``level`` sent once per game (``game`` is the clock id)."""
        if limit.clock_id is None and game is not None:
            limit = dataclasses.replace(limit, clock_id=game)
        return await super().play(
            board,
            limit,
            game=game,
            info=info,
            ponder=ponder,
            draw_offered=draw_offered,
            root_moves=root_moves,
            options=options,
            opponent=opponent,
        )

    async def quit(self) -> None:
        """Send ``quit``; kill the process (group) if it has not exited after :attr:`quit_timeout`."""
        if self.returncode.done() or self.transport is None or self.transport.is_closing():
            return
        self.send_line("quit")
        try:
            await asyncio.wait_for(asyncio.shield(self.returncode), self.quit_timeout)
        except TimeoutError:
            LOGGER.warning("%s: no exit %g s after quit, killing it", self, self.quit_timeout)
            _kill(self.transport)
            await asyncio.shield(self.returncode)


def _split(line: str) -> tuple[str, str]:
    token, _, rest = line.strip().partition(" ")
    return token, rest


def _home_castling_rights(board: chess.Board) -> chess.Bitboard:
    """The castling rights an ``edit`` position implies: rooks at home beside their king at home."""
    rights = chess.BB_EMPTY
    if board.king(chess.WHITE) == chess.E1:
        rights |= board.pieces_mask(chess.ROOK, chess.WHITE) & (chess.BB_A1 | chess.BB_H1)
    if board.king(chess.BLACK) == chess.E8:
        rights |= board.pieces_mask(chess.ROOK, chess.BLACK) & (chess.BB_A8 | chess.BB_H8)
    return rights


def _kill(transport: asyncio.SubprocessTransport) -> None:
    """Kill the engine's process group if it leads one (wrappers fork), else the process."""
    pid = transport.get_pid()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            transport.kill()


async def popen_xboard(
    command: Sequence[str],
    *,
    cwd: str | None = None,
    stderr: int | IO[bytes] | None = None,
    features: Mapping[str, FeatureValue] = {},
    preexec_fn: Callable[[], object] | None = None,
) -> tuple[asyncio.SubprocessTransport, XBoardEngine]:
    """Start an XBoard engine in a process group of its own and negotiate its features, like
    ``chess.engine.popen_xboard``.

    ``features`` (an engine definition's ``xboard_features``) override and
    complete what the engine declares, e.g. ``{"ping": False}`` or
    ``{"setboard": True}``. On failure the engine is killed before the error propagates.
    """
    transport, protocol = await popen(XBoardEngine, command, cwd=cwd, stderr=stderr, preexec_fn=preexec_fn)
    protocol.assumed_features = {k: int(v) if isinstance(v, bool) else v for k, v in features.items()}
    try:
        await protocol.initialize()
    except BaseException:
        _kill(transport)
        transport.close()
        raise
    return transport, protocol
