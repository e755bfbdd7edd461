"""UCI engines as a match runner speaks to them: the handshake, options, new games, moves, pondering, stop.

:class:`UciClient` sends what python-chess's ``UciProtocol.play`` sends, as
fastchess and cutechess do, at a cost per move that does not grow with the game:

1. the ``position`` line is kept and grows by the moves played since the
   engine's last turn; it is built afresh for a new game (a null move, which
   UCI cannot send, starts it again from the position after it);
2. the managed options (``UCI_AnalyseMode``, ``Ponder``, ``MultiPV``) are set
   at the start of each game (:meth:`UciClient.new_game`: ``ucinewgame``, then
   ``isready`` and its ``readyok``, so that the engine's preparation is not
   charged to its clock), the variant's with the game's first ``position``;
   later moves send ``position`` and ``go`` only, in one write, so the engine
   wakes once;
3. ``info`` lines are kept as text and read once the move has come, only as far
   as the caller asks (:func:`~tmanager.tourney.search.uci_report`); while nobody
   reads them they are dropped as they are read
   (:attr:`~tmanager.tourney.enginelines.EngineLines.skip_reports`);
4. ``bestmove`` is checked against the caller's board, which is not copied.

A pondering engine (``ponder = true``) searches the move it expects from its
opponent with ``go ponder``; ``ponderhit`` when the opponent played it, ``stop``
otherwise, as python-chess does. A search cut short by the caller (its clock ran
out) gets ``stop``; its ``bestmove`` is awaited before anything else is asked.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import chess

from tmanager.errors import ConfigError
from tmanager.tourney.engineclient import EngineClient, finishes, milliseconds
from tmanager.tourney.enginelines import EngineError, IllegalMove
from tmanager.tourney.engineoptions import EngineOption, OptionKind, OptionValue, option_text, uci_option
from tmanager.tourney.search import NO_REPORT, Reply, SearchLimit, Wanted, uci_report

LOGGER = logging.getLogger(__name__)


class _State(enum.Enum):
    """What the engine is doing, as far as the client knows."""

    IDLE = enum.auto()
    HANDSHAKE = enum.auto()  #: ``uci`` sent, ``uciok`` awaited
    READY = enum.auto()  #: ``isready`` sent, ``readyok`` awaited
    SEARCH = enum.auto()  #: ``go`` sent, ``bestmove`` awaited by the caller
    PONDER = enum.auto()  #: ``go ponder`` sent: searching the opponent's expected move
    STOPPED = enum.auto()  #: ``stop`` sent: its ``bestmove`` is awaited, and thrown away


@dataclass(frozen=True, slots=True)
class _Ponder:
    """The position a pondering engine searches: the game's moves so far, then its move and the one it expects
    (``plies`` in all), and its position line."""

    plies: int
    moves: tuple[chess.Move, chess.Move]
    line: str


class UciClient(EngineClient):
    """One UCI engine (see the module docstring)."""

    done_word = "uciok"
    ready_command = "isready"
    ready_answer = "readyok"
    no_move = "(none)"
    fixed_limits = True
    interruption = "stop during an infinite search"
    scored_reports = True

    def __init__(self) -> None:
        super().__init__()
        self._state = _State.IDLE
        self._config: dict[str, OptionValue] = {}  # each option's value as the engine has it, by its name
        self._given: set[str] = set()  # the options given values by configure()
        self._new_game_due = True  # the next move is a new game's first
        self._line = ""  # the position line last sent, and the plies its start and its moves reach
        self._line_start = self._line_plies = -1
        self._go_for: SearchLimit | None = None  # the limit of the go line last built, and that line
        self._go = ""
        # The search under way: its board, what is read of it, its lines.
        self._board = chess.Board()
        self._wanted = Wanted.NOTHING
        self._infos: list[str] = []
        self._kept: list[str] | None = None
        # The move the engine expects, with its last bestmove, as it wrote it: read only by a game that ponders
        # (a push, a legality check and a pop of the board, on every move of every game, for nothing).
        self._ponder_word: str | None = None
        self._pondering: _Ponder | None = None
        self._stopped: asyncio.Future[None] | None = None  # done once a stopped search's bestmove came

    # --- handshake and options -----------------------------------------------------------------

    async def handshake(self) -> None:
        """``uci``; the engine's name, author and options, until ``uciok``."""
        self._state = _State.HANDSHAKE
        question = self.expect()
        self.send("uci")
        await question
        self._config = {name: option.default for name, option in self.options.items() if option.default is not None}

    def configure(self, options: Mapping[str, OptionValue]) -> None:
        """``setoption`` for each value that differs from what the engine has; :class:`EngineError` for an
        option it does not have, one the runner sets itself, or a value the option cannot take."""
        lines = []
        for name, value in options.items():
            option = self._option(name)
            if option is None:
                available = ", ".join(self.options)
                raise EngineError(f"engine does not support option {name} (available options: {available})")
            if option.managed:
                raise EngineError(f"cannot set {name} which is automatically managed")
            lines += self._setoption(option, value)
            self._given.add(option.name)
        if lines:
            self.send(*lines)

    def _option(self, name: str) -> EngineOption | None:
        option = self.options.get(name)
        if option is None:  # UCI's option names are not case-sensitive
            option = next((o for n, o in self.options.items() if n.lower() == name.lower()), None)
        return option

    def _setoption(self, option: EngineOption, value: OptionValue) -> list[str]:
        """The ``setoption`` line that gives ``option`` ``value``, if the engine has another value."""
        value = option.parse(value)
        if value is not None and value == self._config.get(option.name):
            return []
        self._config[option.name] = value
        if value is None:
            return [f"setoption name {option.name}"]
        return [f"setoption name {option.name} value {option_text(value)}"]

    def _managed(self, name: str, value: OptionValue) -> Iterator[str]:
        option = self.options.get(name)
        if option is not None:
            yield from self._setoption(option, value)

    # --- games ---------------------------------------------------------------------------------

    async def new_game(self, *, ponder: bool = False) -> None:
        """``ucinewgame`` with the managed options, then ``isready``: the engine is ready for a game's first
        move once ``readyok`` came. :meth:`play` then sends ``position`` and ``go`` only."""
        await self.settle()
        lines: list[str] = []
        if "UCI_AnalyseMode" not in self._given:  # a game is no analysis, unless the options say so
            lines += self._managed("UCI_AnalyseMode", False)
        lines += self._managed("Ponder", ponder)
        if "MultiPV" in self.options:
            lines += self._managed("MultiPV", self.options["MultiPV"].default)
        self._line_plies = -1  # the position line starts afresh
        self._new_game_due = False
        await self._ready(*lines, "ucinewgame")

    async def ping(self) -> None:
        """``isready``, answered by ``readyok``, once a search stopped meanwhile has ended."""
        await self.settle()
        await self._ready()

    async def _ready(self, *lines: str) -> None:
        self._state = _State.READY
        question = self.expect()
        self.send(*lines, "isready")
        await question

    def check_variant(self, board: chess.Board, name: str) -> None:
        hint = "choose another engine or variant"
        wanted, option = type(board).uci_variant or "chess", self._option("UCI_Variant")
        if wanted != "chess" and (option is None or (option.kind is OptionKind.COMBO and wanted not in option.choices)):
            offered = ", ".join(option.choices) if option is not None else "none: it has no UCI_Variant option"
            raise ConfigError(f"engine {name!r} does not play variant {wanted} (it offers {offered})", hint=hint)
        if board.chess960 and self._option("UCI_Chess960") is None:
            raise ConfigError(f"engine {name!r} does not play Chess960 (it has no UCI_Chess960 option)", hint=hint)

    async def game_over(self, board: chess.Board, result: str, reason: str) -> None:
        """UCI engines are not told how a game ended; one that ponders stops."""
        await self.settle()

    # --- moves ---------------------------------------------------------------------------------

    async def play(
        self, board: chess.Board, limit: SearchLimit, *, wanted: Wanted = Wanted.NOTHING, keep_lines: bool = False,
        ponder: bool = False,
    ) -> Reply:
        """The engine's move in ``board``, which within a game must be the board of the previous call with moves
        pushed since. With ``keep_lines``, the reply holds the lines of the search (its PVs are checked, its
        ``info string``s quoted in the PGN); with ``ponder``, the engine then ponders the move it expects."""
        pondering = self._pondering
        if pondering is not None and self._state is _State.PONDER and _expected(board, pondering):
            self._pondering = None
            self._line, self._line_plies = pondering.line, pondering.plies  # the ponder line, now the game's
            return await self._search(board, limit, ["ponderhit"], wanted, keep_lines, ponder)
        if self._stopped is not None or self._state is _State.PONDER:
            await self.settle()
        if self._new_game_due:
            await self.new_game(ponder=ponder)
        lines = [*self._position(board), self._go_line(limit)]
        return await self._search(board, limit, lines, wanted, keep_lines, ponder)

    async def _search(
        self, board: chess.Board, limit: SearchLimit, lines: list[str], wanted: Wanted, keep_lines: bool,
        ponder: bool,
    ) -> Reply:
        self._board, self._wanted, self._infos = board, wanted, []
        self._kept = [] if keep_lines else None
        self.skip_reports = not wanted and not keep_lines
        self._state = _State.SEARCH
        question = self.expect()
        self.send(*lines)
        started = time.monotonic()
        try:
            reply: Reply = await question
        except asyncio.CancelledError:
            self._abandon()
            raise
        if ponder and reply.move is not None and self._ponder_word is not None:
            expected = _parse_after(board, reply.move, self._ponder_word)
            if expected is not None:
                self._ponder(board, limit, reply.move, expected, time.monotonic() - started)
        return reply

    def stop(self) -> None:
        """``stop``: the search under way ends now, and its ``bestmove`` answers the move request."""
        if self._state is _State.SEARCH:
            self.send("stop")

    def _abandon(self) -> None:
        """End the search under way (or the ponder search) with ``stop``, nobody waiting for its ``bestmove``,
        which is thrown away (see :meth:`settle`)."""
        if self._state in (_State.SEARCH, _State.PONDER) and self.alive:  # nothing of an engine gone ends
            self._state = _State.STOPPED
            self._stopped = self.loop.create_future()
            self._pondering = None
            self.send("stop")

    def terminated(self) -> None:
        # A search given up on (a ponder search, on a ponder miss) never ends in an engine gone: what is asked
        # next fails at once as its crash, not when the clock of a move never asked for runs out.
        stopped, self._stopped = self._stopped, None
        if stopped is not None and not stopped.done():
            stopped.set_result(None)

    async def settle(self) -> None:
        """Stop pondering, and wait until a search given up on has ended (the caller bounds the wait)."""
        if self._state is _State.PONDER:
            self._abandon()
        if self._stopped is not None:
            await asyncio.shield(self._stopped)

    def _ponder(self, board: chess.Board, limit: SearchLimit, move: chess.Move, expected: chess.Move,
                used: float) -> None:
        """``go ponder`` in the position after ``move`` and the ``expected`` answer, on the clocks the engine
        will then have (its own less ``used``, plus its increment), as python-chess sets them."""
        mover = board.turn
        clocks = {chess.WHITE: limit.white_clock, chess.BLACK: limit.black_clock}
        increments = {chess.WHITE: limit.white_inc, chess.BLACK: limit.black_inc}
        for color, clock in clocks.items():
            if clock is not None:
                clocks[color] = clock + (increments[color] or 0.0) - (used if color == mover else 0.0)
        ponder_limit = SearchLimit(
            limit.move_time, limit.nodes, limit.depth, clocks[chess.WHITE], clocks[chess.BLACK], limit.white_inc,
            limit.black_inc, limit.moves_to_go - 1 if limit.moves_to_go else limit.moves_to_go,
        )
        moves = f"{'' if self._line_plies > self._line_start else ' moves'} {move.uci()} {expected.uci()}"
        self._pondering = _Ponder(len(board.move_stack) + 2, (move, expected), self._line + moves)
        self._state = _State.PONDER
        self.skip_reports = True
        self.send(self._pondering.line, "go ponder" + _go_words(ponder_limit))

    def _position(self, board: chess.Board) -> list[str]:
        """The ``position`` line for ``board``: the last one sent, with the moves since appended; with the
        variant's options before it when the line starts afresh."""
        stack = board.move_stack
        lines: list[str] = []
        if self._line_plies < 0 or len(stack) < self._line_plies:
            lines = self._restart_line(board)
        new = stack[self._line_plies :]
        if not all(new):
            lines = self._restart_line(board)
            new = []
        if new:
            self._line += (" " if self._line_plies > self._line_start else " moves ") + " ".join(m.uci() for m in new)
            self._line_plies = len(stack)
        return [*lines, self._line]

    def _restart_line(self, board: chess.Board) -> list[str]:
        """Start the line at ``position startpos`` or ``position fen …`` of the board's root (at the current
        position if the history holds a null move, which UCI cannot send); the variant's options, as
        python-chess sets them."""
        uci_variant = type(board).uci_variant or "chess"
        lines = list(self._managed("UCI_Variant", uci_variant))
        if uci_variant != "chess" and "UCI_Variant" not in self.options:
            raise EngineError("engine does not support UCI_Variant")
        lines += self._managed("UCI_Chess960", board.chess960)
        if board.chess960 and "UCI_Chess960" not in self.options:
            raise EngineError("engine does not support UCI_Chess960")
        whole_history = all(board.move_stack)
        root = board.root() if whole_history else board
        fen = root.fen(shredder=board.chess960, en_passant="fen")
        standard = uci_variant == "chess" and fen == chess.STARTING_FEN
        self._line = "position startpos" if standard else f"position fen {fen}"
        self._line_start = self._line_plies = 0 if whole_history else len(board.move_stack)
        return lines

    def _go_line(self, limit: SearchLimit) -> str:
        """``go`` with ``limit``'s words (built once for a limit used again: a fixed one, every move)."""
        if limit is not self._go_for:
            self._go_for, self._go = limit, "go" + _go_words(limit)
        return self._go

    # --- lines from the engine -----------------------------------------------------------------

    def line_received(self, line: str) -> None:
        state = self._state
        if state is _State.SEARCH:
            self._search_line(line)
        elif state is _State.PONDER or state is _State.STOPPED:
            if line.startswith("bestmove"):  # of the search stopped, or of a ponder search that ended by itself
                self._state, self._pondering = _State.IDLE, None
                stopped, self._stopped = self._stopped, None
                if stopped is not None and not stopped.done():
                    stopped.set_result(None)
        elif state is _State.READY:
            if line.strip() == "readyok":
                self._state = _State.IDLE
                self.answer()
        elif state is _State.HANDSHAKE:
            self._handshake_line(line)
        else:
            super().line_received(line)

    def _search_line(self, line: str) -> None:
        token, _, rest = line.strip().partition(" ")
        if token == "bestmove":
            self._bestmove(rest)
            return
        if self._kept is not None:
            self._kept.append(line)
        if token == "info" and self._wanted:
            self._infos.append(rest)

    def _bestmove(self, rest: str) -> None:
        words = rest.split()
        move = None
        self._ponder_word = None
        self._state = _State.IDLE
        if not words or words[0] in ("(none)", "NULL"):
            # UCI's word for "no legal move": where there is one to play it claims no result (UCI has no claims)
            # but is a move not played, an illegal move as fastchess scores it (fishtest stops a test on it)
            if any(self._board.legal_moves):
                self.fail(IllegalMove("no move in a position that has legal moves", move=" ".join(words[:1])))
                return
        else:
            try:
                move = self._board.parse_uci(words[0].lower())  # AnMon 5.75 promotes in upper case
            except ValueError as exc:
                self.fail(IllegalMove(exc, move=words[0]))
                return
            if move.uci().lower() != words[0].lower():
                # python-chess also reads castling as the king taking its rook (e1h1) outside Chess960, where
                # UCI writes e1g1: fastchess finds no such move there, an illegal one (fishtest stops a test on it)
                self.fail(IllegalMove(f"{words[0]} is not UCI's notation of {move.uci()}", move=words[0]))
                return
            if len(words) >= 3 and words[1] == "ponder" and move and words[2] not in ("(none)", "NULL"):
                self._ponder_word = words[2].lower()
        self.answer(Reply(move, uci_report(self._infos, self._wanted) if self._wanted else NO_REPORT,
                          lines=self._kept or ()))

    def _handshake_line(self, line: str) -> None:
        token, _, rest = line.strip().partition(" ")
        if token == "uciok":
            self._state = _State.IDLE
            self.answer()
        elif token == "id":
            key, _, value = rest.partition(" ")
            if key == "name":
                self.name = value.strip()
            elif key == "author":
                self.author = value.strip()
        elif token == "option":
            option = uci_option(rest)
            if option is None:
                self.unread_options.append(rest)
            else:
                self.options[option.name] = option

    # --- compliance ----------------------------------------------------------------------------

    def handshake_notes(self, *, took: str) -> tuple[list[str], list[str]]:
        problems = [f"no 'id {what}'" for what, value in (("name", self.name), ("author", self.author)) if not value]
        return problems, [f"uciok in {took}", f"{self.name or '?'} by {self.author or '?'}"]

    async def interruption_check(self, *, after: float, within: float) -> tuple[list[str], list[str]]:
        """``go infinite``, then ``stop`` ``after`` seconds later: its ``bestmove``, a legal move, within
        ``within`` seconds."""
        board = chess.Board()
        await self.new_game()
        search = asyncio.ensure_future(self.play(board, SearchLimit(infinite=True)))
        try:
            early = await finishes(search, after)
            self.stop()
            started = time.monotonic()
            try:
                reply = await asyncio.wait_for(asyncio.shield(search), within)
            except TimeoutError:
                raise TimeoutError(f"no answer to stop in {within:g} s") from None
        finally:
            search.cancel()
        problems = ["it ended the infinite search by itself, before stop"] if early else []
        best = reply.move
        if best is None or not best or best not in board.legal_moves:
            problems.append(f"bestmove after stop is not a legal move: {best}")
        return problems, [f"bestmove {best} {milliseconds(time.monotonic() - started)} after stop"]


def _expected(board: chess.Board, pondering: _Ponder) -> bool:
    """Whether ``board`` is the position the engine ponders: its move, then the one it expected."""
    stack = board.move_stack
    return len(stack) == pondering.plies and tuple(stack[-2:]) == pondering.moves


def _parse_after(board: chess.Board, move: chess.Move, uci: str) -> chess.Move | None:
    """``uci`` as a legal move after ``move`` in ``board`` (left as it was), or ``None``."""
    board.push(move)
    try:
        return board.parse_uci(uci)
    except ValueError:
        return None
    finally:
        board.pop()



def _go_words(limit: SearchLimit) -> str:
    """The words of ``go`` for ``limit`` (with a leading space), as python-chess writes them."""
    words = []
    for word, seconds in (("wtime", limit.white_clock), ("btime", limit.black_clock)):
        if seconds is not None:
            words.append(f" {word} {max(1, round(seconds * 1000))}")
    for word, seconds in (("winc", limit.white_inc), ("binc", limit.black_inc)):
        if seconds is not None:
            words.append(f" {word} {round(seconds * 1000)}")
    if limit.moves_to_go is not None and limit.moves_to_go > 0:
        words.append(f" movestogo {limit.moves_to_go}")
    for word, count in (("depth", limit.depth), ("nodes", limit.nodes)):
        if count is not None:
            words.append(f" {word} {max(1, count)}")
    if limit.move_time is not None:
        words.append(f" movetime {max(1, round(limit.move_time * 1000))}")
    if limit.infinite:
        words.append(" infinite")
    return "".join(words)
