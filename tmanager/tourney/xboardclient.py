"""XBoard engines the way XBoard runs them: every engine XBoard can run, python-chess's refusals aside.

python-chess 1.11 (``chess.engine.XBoardProtocol``) refuses engines that do not
declare ``setboard`` and ``ping``, and its start-up waits for ever on an engine
that says ``feature done=0`` and never ``done=1``. XBoard itself runs such
engines. :class:`XBoardClient` sends what python-chess sends, with these
deviations, each one what XBoard (``backend.c``) does in the same situation:

1. **Feature negotiation** (:meth:`XBoardClient.handshake`). After ``xboard`` /
   ``protover 2`` it waits for ``done=1`` at most
   :attr:`~XBoardClient.feature_timeout` seconds, or
   :attr:`~XBoardClient.done0_timeout` once the engine said ``done=0``; then it
   goes on with what it has (XBoard: 10 s, and one hour after ``done=0``). Until
   the engine sends its first ``feature``, ``protover 2`` is sent again after
   :attr:`~XBoardClient.resend_interval` seconds, then after twice as long each
   time (XBoard sends it once): GNU Chess 6.2.7 may discard what came with the
   first line it read (see the end of this docstring). ``setboard`` and ``ping``
   are not required. Error replies during the negotiation (a protocol-1 engine
   answering ``protover``) are ignored. Features the engine declares later, at
   any time, still count, and a second answer to ``protover`` is harmless. The
   ``features`` of the engine definition are applied on top of what the engine
   declares. ``sigterm=0`` is accepted, not rejected: nothing here sends
   SIGTERM, and HoiChess answers the rejection with a warning. Option names may
   hold spaces (Fairy-Max's ``Resign Threshold``).
2. **No setboard**: ``setboard FEN`` becomes XBoard's ``edit`` sequence (:mod:`.xboardedit`). For a
   Black-to-move position the engine first gets ``a2a3`` (it has just had
   ``new`` and ``force``), as XBoard does. ``edit`` cannot say "no castling" for
   a king and rook on their home squares; such a start is refused before the
   game as a configuration error (:meth:`~XBoardClient.check_variant`) rather
   than silently changed. The en-passant square and the move counters are lost, as with XBoard.
3. **No ping**: where python-chess waits for ``pong`` after the engine's move,
   the move is taken as the synchronisation, as XBoard does. With ``ping``, the
   move is the answer at once, and the ``pong`` is awaited before the engine is
   asked anything else.
4. **Moves written as** ``NUMBER ... MOVE`` (GNU Chess, old protocol-1 engines)
   are read like ``move MOVE``, as XBoard reads them.
5. **Time control**: ``level`` is sent once per game (python-chess resends it
   whenever the caller gives no clock id, with the mover's current clock as the
   base time). Besides being what XBoard does, this avoids ``level 0 0:00 INC``
   when a clock falls under one second, which HoiChess rejects; a base under one
   second from the start (``tc = "0.5+0.1"``) is sent as ``0:01`` for that reason.
6. **Quit** never hangs: :meth:`XBoardClient.quit` waits at most
   :attr:`~XBoardClient.quit_timeout` seconds, then kills the process (its whole
   group when it leads one).

HoiChess 0.22, when its input is not a terminal, *exits with status 1 on the
first command it rejects* (it reads stdin like a script). Such commands are
``st`` with a fraction of a second, ``level`` with a base of ``0:00``, ``nps``
for node limits. Item 5 removes the one a clock-based game sends;
:attr:`XBoardClient.last_complaint` keeps the engine's last error line so that
a crash can be explained.

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
import enum
import logging
import os
import re
import shlex
import signal
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

import chess

from tmanager.errors import ConfigError, ascii_digits, first_line
from tmanager.tourney.engineclient import EngineClient, finishes, milliseconds
from tmanager.tourney.enginelines import EngineError, IllegalMove, UnsupportedLimit
from tmanager.tourney.engineoptions import EngineOption, OptionKind, OptionValue, xboard_option
from tmanager.tourney.search import NO_REPORT, Reply, SearchLimit, Wanted, xboard_report
from tmanager.tourney.xboardedit import edit_lines, edit_refusal

if TYPE_CHECKING:
    from tmanager.core.timecontrol import TimeControl
    from tmanager.tourney.engines import EngineSpec

LOGGER = logging.getLogger(__name__)

FeatureValue = str | int | bool

#: ``12. ... e7e5`` (GNU Chess) is a move, as ``move e7e5`` is.
_NUMBERED_MOVE = re.compile(r"^\s*\d+\s*\.*\s+\.\.\.\s+(\S+)\s*$")
#: Lines an engine prints when it rejects a command.
_COMPLAINT = re.compile(r"^\s*(Error|Illegal|Invalid|tellusererror)", re.IGNORECASE)
#: The engine's refusal of ``nps`` or ``sd``, the commands a node or depth limit is given by: ``Error (unknown
#: command): nps`` (Fairy-Max, HoiChess), or an old engine's taking it for a move, ``Illegal move: nps 1`` and
#: ``Illegal move: sd 3`` (Phalanx), ``Invalid move: nps 1`` and ``Invalid move: sd 3`` (GNU Chess); or of
#: ``st``, by HoiChess, which takes whole seconds only and answers ``st 0.5`` with ``Illegal time value.``
#: (then exits). Of the other commands that give it times, it names the one it refuses (``level``).
_LIMIT_REFUSED = re.compile(
    r"^\s*(?:(?:Error|Illegal move|Invalid move)\s*(?:\([^()]+\))?\s*:\s*(?P<command>nps|sd)\b|Illegal time value)"
)
#: What each refused command limits, and the limits to give the engine instead.
_REFUSED_LIMITS = {
    "nps": ("a node limit", "give it tc, st or depth instead of nodes"),
    "sd": ("a depth limit", "give it tc or st instead of depth"),
    "st": ("a time per move", "give it st in whole seconds, or tc or depth instead"),
}
#: An error that says the engine and the runner no longer agree on the position (python-chess's).
_OUT_OF_STEP = re.compile(r"^\s*(Error|Illegal move)(\s*\([^()]+\))?\s*:")
#: Options the protocol sets by commands of its own rather than ``option``, with their commands.
_COMMAND_OPTIONS = ("memory", "cores")
#: A move that comes later than this after ``?`` was the engine's own decision.
MOVE_NOW_SECONDS = 0.5


class _State(enum.Enum):
    IDLE = enum.auto()
    NEGOTIATION = enum.auto()  #: ``protover 2`` sent, ``feature done=1`` awaited
    SEARCH = enum.auto()  #: ``go`` sent, a move (or a resignation, or a result claimed) awaited by the caller
    STOPPED = enum.auto()  #: the caller gave up on the search: its move is awaited, then the pong after it
    PONG = enum.auto()  #: ``ping`` sent, its ``pong`` awaited


class XBoardClient(EngineClient):
    """One XBoard engine, protocol 2 or 1 (see the module docstring)."""

    done_word = "feature done=1"
    ready_command = "ping"
    ready_answer = "pong"
    no_move = "a result claim"
    fixed_limits = False
    interruption = "? during a long search"
    scored_reports = False

    #: Seconds to wait for ``feature done=…`` before going on without it.
    feature_timeout: float = 2.0
    #: Seconds to wait for ``done=1`` once the engine has sent ``done=0``.
    done0_timeout: float = 5.0
    #: Until the engine's first ``feature``, ``protover 2`` again after so many seconds, then
    #: after twice as long each time (GNU Chess 6.2.7 crashes when too many answers pile up).
    resend_interval: float = 0.1
    #: Seconds :meth:`quit` waits for the process to exit before killing it.
    quit_timeout: float = 2.0

    @classmethod
    def for_engine(cls, spec: EngineSpec) -> XBoardClient:
        return cls(features=spec.xboard_features)

    @classmethod
    def limit_problem(cls, spec: EngineSpec, limits: TimeControl) -> tuple[str, str] | None:
        """A node limit stands alone: XBoard gives it as ``nps 1`` and ``st NODES``, which take the place of the
        clock and of the time per move."""
        if limits.nodes is None:
            return None
        if limits.has_clock or limits.increment or limits.move_time is not None:
            return ("cannot search a node limit with a clock or a time per move (XBoard's nps makes the nodes its "
                    "clock)", "give it nodes alone, or tc, st or depth without nodes")
        if spec.xboard_features.get("nps") in (0, False):
            return "cannot search a node limit: its definition says nps=0", "give it tc, st or depth instead of nodes"
        return None

    def __init__(self, *, features: Mapping[str, FeatureValue] = {}) -> None:
        super().__init__()
        self.features: dict[str, str | int] = {}
        #: The engine definition's ``xboard_features``, over what the engine declares.
        self.assumed_features = {key: int(value) if isinstance(value, bool) else value
                                 for key, value in features.items()}
        self.last_complaint: str | None = None  #: the engine's last line rejecting a command
        self.settings: dict[str, OptionValue] = {}  # the values given to the options
        self._state = _State.IDLE
        self._new_game_due = True
        self._level_sent = False
        self._sent_plies = 0  # the plies of the game the engine knows
        self._board = chess.Board()
        self._wanted = Wanted.NOTHING
        self._kept: list[str] | None = None
        self._report = NO_REPORT
        self._pings = 0
        self._settled: asyncio.Future[None] | None = None  # done once the engine is in step again
        self._timer: asyncio.TimerHandle | None = None  # the negotiation's end
        self._resend: asyncio.TimerHandle | None = None  # its next protover 2

    # --- feature negotiation -------------------------------------------------------------------

    async def handshake(self) -> None:
        """Negotiate features as XBoard does: time out, require nothing, accept late features."""
        self._state = _State.NEGOTIATION
        question = self.expect()
        self.send("xboard", "protover 2")
        self._timer = self.loop.call_later(self.feature_timeout, self._negotiated)
        self._resend = self.loop.call_later(self.resend_interval, self._ask_again, 1)
        try:
            await question
        finally:
            self._timer.cancel()
            self._resend.cancel()
        self._features_settled()

    def _ask_again(self, n: int) -> None:
        # GNU Chess 6.2.7 may throw away what came with its first input line (module docstring);
        # what is sent once it has read that line reaches it.
        if self._state is _State.NEGOTIATION:
            self.send("protover 2")
            self._resend = self.loop.call_later(self.resend_interval * 2**n, self._ask_again, n + 1)

    def _negotiated(self) -> None:
        if self._state is _State.NEGOTIATION:
            if "done" not in self.features:
                LOGGER.info("%s: no feature done=1 in time, going on without it", self)
            self._state = _State.IDLE
            self.answer()

    def _declare(self, text: str, *, options: bool) -> None:
        """Record ``feature`` pairs; ``option=`` ones only while negotiating."""
        try:
            pairs = [item.split("=", 1) for item in shlex.split(text)]
        except ValueError:
            LOGGER.warning("%s: unreadable feature line: %r", self, text)
            return
        for key, value in (pair for pair in pairs if len(pair) == 2):
            if key == "option" and options:
                option = xboard_option(value)
                if option is None:
                    self.unread_options.append(value)
                else:
                    self.options[option.name] = option
            else:
                self.features[key] = int(value) if ascii_digits(value.removeprefix("-")) else value
        self.features.update(self.assumed_features)

    def _features_settled(self) -> None:
        """Apply the features, as python-chess does at the end of its negotiation."""
        features = self.features
        features.update(self.assumed_features)
        lines = []
        # The engine is reused between games, and told moves in coordinates.
        if not features.get("reuse", 1):
            LOGGER.warning("%s: rejecting feature reuse=0", self)
            lines.append("rejected reuse")
        if features.get("san", 0):
            LOGGER.warning("%s: rejecting feature san=1", self)
            lines.append("rejected san")
        if "myname" in features:
            self.name = str(features["myname"])
        if features.get("memory"):
            self.options["memory"] = EngineOption("memory", OptionKind.SPIN, 16, 1, None)
            lines.append("accepted memory")
        if features.get("smp"):
            self.options["cores"] = EngineOption("cores", OptionKind.SPIN, 1, 1, None)
            lines.append("accepted smp")
        if features.get("egt"):
            for egt in str(features["egt"]).split(","):
                self.options[f"egtpath {egt}"] = EngineOption(f"egtpath {egt}", OptionKind.PATH)
            lines.append("accepted egt")
        if lines:
            self.send(*lines)

    # --- options and games ---------------------------------------------------------------------

    def configure(self, options: Mapping[str, OptionValue]) -> None:
        lines = []
        for name, value in options.items():
            option = self.options.get(name)
            if option is None:
                raise EngineError(f"unsupported xboard option or command: {name}")
            parsed = option.parse(value)
            if parsed is not None and parsed == self.settings.get(name):
                continue
            self.settings[name] = parsed
            if name in _COMMAND_OPTIONS or name.startswith("egtpath "):
                lines.append(f"{name} {parsed}")
            elif parsed is None:
                lines.append(f"option {name}")
            else:
                lines.append(f"option {name}={int(parsed) if isinstance(parsed, bool) else parsed}")
        if lines:
            self.send(*lines)

    def own_options(self) -> dict[str, EngineOption]:
        return {name: option for name, option in self.options.items()
                if name not in _COMMAND_OPTIONS and not name.startswith("egtpath ")}

    def check_variant(self, board: chess.Board, name: str) -> None:
        wanted = "fischerandom" if board.chess960 else type(board).xboard_variant or "normal"
        variants = [v for v in str(self.features.get("variants", "")).split(",") if v]
        if wanted != "normal" and wanted not in variants:
            shown = ", ".join(variants) or "none"
            raise ConfigError(f"engine {name!r} does not play variant {wanted} (it offers {shown})",
                              hint="choose another engine or variant")
        # A start edit cannot set up is the tourney's openings' doing, never a move of the engine's.
        fen = _start_fen(board)
        refusal = None if fen is None or self.features.get("setboard") else edit_refusal(fen)
        if refusal is not None:
            raise ConfigError(f"engine {name!r} cannot be given the position {fen!r}: {refusal}",
                              hint="use openings whose castling rights their kings and rooks imply, "
                                   "or an engine with setboard")

    async def new_game(self, *, ponder: bool = False) -> None:
        """The next move begins a game (``new``, the variant, the position, ``level``)."""
        self._new_game_due = True

    @property
    def can_ping(self) -> bool:
        return bool(self.features.get("ping"))

    async def ping(self) -> None:
        """``ping N``, answered by ``pong N``, once the engine is in step (nothing without ``ping``)."""
        await self.settle()
        if self.can_ping:
            question = self.expect()
            self._ping()
            await question

    def _ping(self) -> None:
        self._pings += 1
        self._state = _State.PONG
        self.send(f"ping {self._pings}")

    async def settle(self) -> None:
        if self._settled is not None:
            await asyncio.shield(self._settled)

    @property
    def behind(self) -> bool:
        """Whether the ``pong`` to the ``ping`` after the engine's move (or its move after ``?``) is still due."""
        return self._settled is not None

    def stop(self) -> None:
        """``?``: move now; the move answers the move request."""
        if self._state is _State.SEARCH:
            self.send("?")

    def _abandon(self) -> None:
        """``?``, nobody waiting for the move: it is awaited (and thrown away) before anything else is asked."""
        if self._state is _State.SEARCH:
            self._state = _State.STOPPED
            self._settled = self.loop.create_future()
            self.send("?")

    async def game_over(self, board: chess.Board, result: str, reason: str) -> None:
        """Tell the engine the moves it has not seen and ``result RESULT {reason}`` (it may learn or log it)."""
        await self.settle()
        self.send("force", *self._moves(board), f"result {result} {{{reason}}}" if reason else f"result {result}")
        self._new_game_due = True

    async def quit(self, word: str = "quit") -> None:
        """Send ``quit``; kill the process (group) if it has not exited after :attr:`quit_timeout`."""
        if self.transport is None or self.transport.is_closing() or not self.alive:
            return
        self.send(word)
        try:
            await asyncio.wait_for(asyncio.shield(self.returncode), self.quit_timeout)
        except TimeoutError:
            LOGGER.warning("%s: no exit %g s after quit, killing it", self, self.quit_timeout)
            kill_group(self.transport)
            await asyncio.shield(self.returncode)

    # --- compliance ----------------------------------------------------------------------------

    def handshake_notes(self, *, took: str) -> tuple[list[str], list[str]]:
        features = self.features
        notes = [f"feature done=1 in {took}" if features.get("done") else f"no 'feature done=1': went on after {took}"]
        notes += [f"name {features['myname']}"] if features.get("myname") else []
        notes += [
            f"declares no {feature} (python-chess alone refuses it; tmanager copes)"
            for feature in ("setboard", "ping")
            if not features.get(feature)
        ]
        return [], notes

    async def interruption_check(self, *, after: float, within: float) -> tuple[list[str], list[str]]:
        """XBoard has no infinite search to stop in a game: ``?`` asks for the move now (an engine may
        ignore it, says the protocol; then it moves in its own time, a minute on the clock)."""
        board = chess.Board()
        await self.new_game()
        search = asyncio.ensure_future(self.play(board, SearchLimit(white_clock=60, black_clock=60)))
        try:
            if await finishes(search, after):
                return [], [f"moved within {milliseconds(after)} with a minute: '?' not checked"]
            self.stop()
            started = time.monotonic()
            try:  # an engine that ignores ? moves in its own time, which its minute bounds
                reply = await asyncio.wait_for(asyncio.shield(search), 60 + within)
            except TimeoutError:
                raise TimeoutError("no answer to ? (nor a move in its minute)") from None
            except EngineError as exc:
                return [], [f"it does not know ? ({first_line(exc)})"]
        finally:
            search.cancel()
        move, took = reply.move, time.monotonic() - started
        if move is None or not move or move not in board.legal_moves:
            return [f"its move after ? is not legal: {move}"], []
        heeded = "" if took < MOVE_NOW_SECONDS else " (it seems to ignore ?, which the protocol allows)"
        return [], [f"move {move.uci()} {milliseconds(took)} after ?{heeded}"]

    # --- moves ---------------------------------------------------------------------------------

    async def play(
        self, board: chess.Board, limit: SearchLimit, *, wanted: Wanted = Wanted.NOTHING, keep_lines: bool = False,
        ponder: bool = False,
    ) -> Reply:
        await self.settle()
        lines = [*self._position(board), *self._time_control(board, limit)]
        lines += ["post" if wanted or keep_lines else "nopost", "hard" if ponder else "easy", "go"]
        self._board, self._wanted, self._report = board, wanted, NO_REPORT
        self._kept = [] if keep_lines else None
        self._state = _State.SEARCH
        question = self.expect()
        self.send(*lines)
        try:
            reply: Reply = await question
        except asyncio.CancelledError:
            self._abandon()
            raise
        return reply

    def _position(self, board: chess.Board) -> list[str]:
        """A new game's set-up, or ``force``; then the moves the engine has not seen."""
        lines = ["force"]
        if self._new_game_due or len(board.move_stack) < self._sent_plies:
            self._new_game_due, self._level_sent, self._sent_plies = False, False, 0
            lines = ["new", *self._variant(board), "force"]
            fen = _start_fen(board)
            if fen is not None:
                lines += self._setboard(fen)
        return [*lines, *self._moves(board)]

    def _moves(self, board: chess.Board) -> list[str]:
        """The moves of ``board`` the engine has not seen (each is then seen)."""
        prefix = "usermove " if self.features.get("usermove", 0) else ""
        new = len(board.move_stack) - self._sent_plies
        if new <= 0:
            return []
        self._sent_plies += new
        if not board.chess960:  # a move's XBoard notation is its UCI text, but for Chess960's castling
            return [prefix + move.xboard() for move in board.move_stack[-new:]]
        moves = [board.pop() for _ in range(new)][::-1]
        lines = []
        for move in moves:  # each told from the position before it, and pushed back
            lines.append(prefix + board.xboard(move))
            board.push(move)
        return lines

    def _variant(self, board: chess.Board) -> list[str]:
        variant = type(board).xboard_variant or "normal"
        if variant == "normal" and board.chess960:
            variant = "fischerandom"
        return [] if variant == "normal" else [f"variant {variant}"]

    def _setboard(self, fen: str) -> list[str]:
        if self.features.get("setboard"):
            return [f"setboard {fen}"]
        return list(edit_lines(fen, usermove=bool(self.features.get("usermove"))))

    def _time_control(self, board: chess.Board, limit: SearchLimit) -> list[str]:
        """``level`` once a game, as XBoard sends it; ``st``, ``sd`` and ``nps`` as python-chess sends them; the
        clocks before every move."""
        lines = []
        white = board.turn == chess.WHITE
        clock = limit.white_clock if white else limit.black_clock
        increment = limit.white_inc if white else limit.black_inc
        if not self._level_sent:
            self._level_sent = True
            if limit.moves_to_go or clock is not None or increment is not None:
                # BASE is minutes or min:sec, whole seconds; a base under a second (tc 0.5+0.1) is said as one:
                # HoiChess exits on `level 0 0:00 INC` (and on XBoard's `level 0 0 INC`). The engine is told its
                # true clock by `time` before each move. INC as XBoard writes it (%g).
                minutes, base = divmod(max(1, int(clock or 0)), 60)
                lines.append(f"level {limit.moves_to_go or 0} {minutes}:{base:02d} {increment or 0:g}")
            if limit.move_time is not None:
                lines.append(f"st {max(0.01, limit.move_time)}")
        if limit.nodes is not None:
            if limit.move_time is not None or limit.has_clocks or increment is not None:
                raise UnsupportedLimit("cannot search a node limit with a clock or a time per move",
                                       hint="give it nodes alone, or tc, st or depth without nodes")
            if "nps" in self.features and not self.features["nps"]:
                raise UnsupportedLimit("cannot search a node limit: it declares feature nps=0",
                                       hint=_REFUSED_LIMITS["nps"][1])
            lines += ["nps 1", f"st {max(1, limit.nodes)}"]
        if limit.depth is not None:
            lines.append(f"sd {max(1, limit.depth)}")
        for own, seconds in ((white, limit.white_clock), (not white, limit.black_clock)):
            if seconds is not None:
                lines.append(f"{'time' if own else 'otim'} {max(1, round(seconds * 100))}")
        return lines

    # --- lines from the engine -----------------------------------------------------------------

    def line_received(self, line: str) -> None:
        token, _, rest = line.strip().partition(" ")
        if token == "feature":
            # XBoard honours features whenever they come; commands need not see them.
            self._declare(rest, options=self._state is _State.NEGOTIATION)
            if self._state is _State.NEGOTIATION:
                self._negotiation_progress()
            return
        if _COMPLAINT.match(line):
            self.last_complaint = line.strip()
        numbered = _NUMBERED_MOVE.match(line)
        if numbered:
            token, rest = "move", numbered.group(1)
        state = self._state
        if state is _State.SEARCH or state is _State.STOPPED:
            self._search_line(line, token, rest.strip())
        elif state is _State.PONG and line.strip() == f"pong {self._pings}":
            self._state = _State.IDLE
            self._in_step()
            self.answer()

    def _negotiation_progress(self) -> None:
        if self._resend is not None:
            self._resend.cancel()  # it heard protover 2
        done = self.features.get("done")
        if done == 0 and self._timer is not None:
            self._timer.cancel()
            self._timer = self.loop.call_later(self.done0_timeout, self._negotiated)
        elif done:
            self._negotiated()

    def _search_line(self, line: str, token: str, rest: str) -> None:
        if token == "move":
            try:
                move = self._board.parse_xboard(rest)
            except ValueError as exc:
                self._answer(error=IllegalMove(exc, move=rest.strip()))
            else:
                self._sent_plies = len(self._board.move_stack) + 1  # the engine made it on its board
                self._answer(Reply(move, self._report, lines=self._kept or ()))
        elif line.strip() == "resign":
            self._answer(Reply(None, self._report, resigned=True, lines=self._kept or ()))
        elif token in ("1-0", "0-1", "1/2-1/2"):
            self._answer(Reply(None, self._report, resigned="resign" in line, lines=self._kept or ()))
        elif refused := _LIMIT_REFUSED.match(line):
            limit, instead = _REFUSED_LIMITS[refused["command"] or "st"]
            self._answer(error=UnsupportedLimit(f"cannot search {limit}: it answered {line.strip()!r}", hint=instead))
        elif _OUT_OF_STEP.match(line):
            self._new_game_due = True  # the engine's board may no longer be the game's
            self._answer(error=EngineError(line))
        else:
            if self._kept is not None:
                self._kept.append(line)
            if self._wanted and line.lstrip()[:1].isdigit():
                self._report = xboard_report(line, self._wanted) or self._report

    def _answer(self, reply: Reply | None = None, *, error: EngineError | None = None) -> None:
        """The search has ended: answer the caller (unless it gave up), then get in step with a ping."""
        if self._state is _State.STOPPED:
            self._question = None  # the caller gave up on it
        elif error is not None:
            self.fail(error)
        else:
            self.answer(reply)
        if self.can_ping:
            if self._settled is None:
                self._settled = self.loop.create_future()
            self._ping()
        else:
            self._state = _State.IDLE
            self._in_step()

    def terminated(self) -> None:
        # Nothing is out of step with an engine gone (one may exit right after its move, before the pong):
        # what is asked next fails at once as its crash, not when the clock of a move never asked for runs out.
        self._in_step()

    def _in_step(self) -> None:
        settled, self._settled = self._settled, None
        if settled is not None and not settled.done():
            settled.set_result(None)


def _start_fen(board: chess.Board) -> str | None:
    """The FEN of ``board``'s start position when ``new`` and the variant do not give it: it is set up."""
    fen = board.root().fen(shredder=board.chess960, en_passant="fen")
    if type(board).xboard_variant != "normal" or fen != chess.STARTING_FEN or board.chess960:
        return fen
    return None


def kill_group(transport: asyncio.SubprocessTransport) -> None:
    """Kill the engine's process group if it leads one (wrappers fork), else the process."""
    pid = transport.get_pid()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            transport.kill()

