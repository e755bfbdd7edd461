"""Workers: claim a game under the lock, play it, record it, run the hooks, repeat.

Any number of workers, in any number of processes and terminals, cooperate on
one tourney file. A claim marks the game ``*`` and records its owner (host,
pid, process start time, heartbeat) in ``[claims]``; a claim whose owner is
gone is released and its game replayed, unless the owner had already appended
the game to the PGN, in which case its result is recovered from there.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import chess
import psutil

from tmanager.core.schedule import DONE, WAIT, ScheduledGame, next_game
from tmanager.errors import ConfigError
from tmanager.files import append_line
from tmanager.formats import pgn
from tmanager.tourney import store, swiss
from tmanager.tourney.model import PLAYING, RESULT_CHAR, UNPLAYED, Claim, Tourney
from tmanager.tourney.openings import OpeningBook, opening_key, variant_board
from tmanager.tourney.play import EnginePool, GameRecord, GameSpec, play_game

log = logging.getLogger("tmanager")

_R = TypeVar("_R")

#: How often a waiting worker looks at the file again (it only reads it).
POLL_SECONDS = 0.25


@dataclass(frozen=True, slots=True)
class Owner:
    """The identity a worker writes into its claims."""

    host: str
    pid: int
    started: float

    @classmethod
    def me(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid(), psutil.Process().create_time())

    def owns(self, claim: Claim | None) -> bool:
        return claim is not None and (claim.host, claim.pid, claim.started) == (self.host, self.pid, self.started)


def claim_is_alive(claim: Claim, *, lease: float, now: float, host: str | None = None) -> bool:
    """Whether a claim's owner may still be playing: a live process on this host, or a fresh heartbeat."""
    if claim.host != (host or socket.gethostname()):
        return now - claim.heartbeat < lease
    try:
        process = psutil.Process(claim.pid)
        same_process: bool = abs(process.create_time() - claim.started) < 0.01
        return same_process and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def stale_games(tourney: Tourney, *, now: float | None = None) -> list[int]:
    """Games marked ``*`` whose owner is gone (or unknown, as in a file written by XBoard)."""
    now = time.time() if now is None else now
    lease = tourney.settings.lease
    return [
        n
        for n, char in enumerate(tourney.results)
        if char == PLAYING and (n not in tourney.claims or not claim_is_alive(tourney.claims[n], lease=lease, now=now))
    ]


def release_stale(tourney: Tourney) -> list[tuple[int, str]]:
    """Release every stale claim; a game already in the PGN keeps its result. Returns (game, new char)."""
    released = []
    for number in stale_games(tourney):
        found = pgn.find_result(tourney.pgn_path, number)
        char = RESULT_CHAR.get(found or "", UNPLAYED)
        tourney.set_result(number, char)
        LiveGame.remove(tourney, number)
        released.append((number, char))
    return released


def game_spec(
    tourney: Tourney, game: ScheduledGame, book: OpeningBook | None, *, log_engines: bool = False
) -> GameSpec:
    """Everything the game runner needs to play scheduled ``game`` of ``tourney``; with ``log_engines``
    (or the tourney's setting) the engines' lines go to the game's file in ``engine_logs_dir``."""
    s, a = tourney.settings, tourney.adjudication
    start_fen: str | None = None
    moves: tuple[str, ...] = ()
    tags = {
        "Event": s.event or s.name,
        "Round": str(game.pgn_round),
        "GameNumber": str(game.number),
    }
    if s.site:
        tags["Site"] = s.site
    if book is not None and tourney.openings is not None:
        o = tourney.openings
        schedule = tourney.schedule()
        key = opening_key(
            game.number, games_per_pairing=schedule.games_per_pairing, games_per_cycle=schedule.games_per_cycle
        )
        opening = book.opening_for(key, order=o.order, seed=o.seed, start=o.start)
        start_fen, moves = opening.fen, opening.moves
    return GameSpec(
        white=tourney.engine_spec(game.white),
        black=tourney.engine_spec(game.black),
        white_limits=tourney.time_control(game.white),
        black_limits=tourney.time_control(game.black),
        start_fen=start_fen,
        opening_moves=moves,
        variant=s.variant,
        adjudication=dataclasses.replace(a, syzygy=str(tourney.directory / a.syzygy) if a.syzygy else ""),
        white_time_margin=tourney.time_margin(game.white),
        black_time_margin=tourney.time_margin(game.black),
        move_timeout=s.move_timeout,
        comments=s.pgn_comments,
        comment_fields=s.pgn_comment_fields,
        notation=s.pgn_notation,
        minimal=s.pgn_minimal,
        engine_log=str(tourney.engine_logs_dir / f"game-{game.number}.log") if s.log_engines or log_engines else "",
        tags=tags,
    )


class LiveGame:
    """Publishes a game in progress as ``live_dir/N.json`` for status pages and dashboards.

    Written at most every :attr:`INTERVAL` seconds, atomically (rename) but
    without fsync: it is a view, rebuilt by the next move, and removed when the
    game is recorded or given back.
    """

    INTERVAL = 0.25

    def __init__(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec) -> None:
        self.path = tourney.live_dir / f"{game.number}.json"
        self.header = {
            "game": game.number,
            "round": game.pgn_round,
            "white": spec.white.name,
            "black": spec.black.name,
            "variant": spec.variant,
        }
        self.last_write = 0.0

    def __call__(self, board: chess.Board, white_clock: float, black_clock: float) -> None:
        now = time.monotonic()
        if now - self.last_write < self.INTERVAL:
            return
        self.last_write = now
        self.write(self.position(board, white_clock, black_clock))

    @staticmethod
    def position(board: chess.Board, white_clock: float, black_clock: float) -> dict[str, Any]:
        """What changes with each move, as plain data (a Dask task sends it to its coordinator)."""
        return {
            "start_fen": board.root().fen(),
            "moves": [move.uci() for move in board.move_stack],
            "fen": board.fen(),
            "white_clock": round(white_clock, 3),
            "black_clock": round(black_clock, 3),
        }

    def write(self, position: dict[str, Any]) -> None:
        """Write the file now: the game's header and ``position`` (see :meth:`position`)."""
        state = {**self.header, **position, "updated": time.time()}
        self.path.parent.mkdir(exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, self.path)

    @staticmethod
    def remove(tourney: Tourney, number: int) -> None:
        (tourney.live_dir / f"{number}.json").unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class GameInProgress:
    """One game as :class:`LiveGame` publishes it in the live directory, read back."""

    number: int
    round: int
    white: str
    black: str
    variant: str
    start_fen: str
    moves: tuple[str, ...]
    fen: str
    white_clock: float
    black_clock: float
    updated: float

    @classmethod
    def load(cls, path: Path) -> GameInProgress | None:
        """Read one live file; ``None`` if it is gone or not what a worker writes."""
        try:
            data: Any = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                number=int(data["game"]),
                round=int(data["round"]),
                white=str(data["white"]),
                black=str(data["black"]),
                variant=str(data["variant"]),
                start_fen=str(data["start_fen"]),
                moves=tuple(str(m) for m in data["moves"]),
                fen=str(data["fen"]),
                white_clock=float(data["white_clock"]),
                black_clock=float(data["black_clock"]),
                updated=float(data["updated"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def last_moves(self, count: int) -> str:
        """The last ``count`` moves in SAN with their numbers (``… 12. Nf3 Nc6``); UCI if they do not replay."""
        board_class, chess960 = variant_board(self.variant)
        try:
            board = board_class(self.start_fen, chess960=chess960)
            shown = max(0, len(self.moves) - count)
            for uci in self.moves[:shown]:
                board.push_uci(uci)
            moves = board.variation_san([chess.Move.from_uci(m) for m in self.moves[shown:]])
        except ValueError:
            return " ".join(self.moves[-count:])
        return ("… " if shown else "") + moves


def run_hook(command: str, *, tourney: Tourney, env: dict[str, str], what: str) -> None:
    """Run a hook through the shell; a failure is logged and never stops the tourney."""
    full_env = {**os.environ, "TMANAGER_TOURNEY": str(tourney.path), "TMANAGER_PGN": str(tourney.pgn_path), **env}
    try:
        done = subprocess.run(command, shell=True, cwd=tourney.directory, env=full_env, check=False)
    except OSError as exc:
        log.warning("%s hook failed to start: %s", what, exc)
        return
    if done.returncode != 0:
        log.warning("%s hook %r exited with status %d", what, command, done.returncode)


#: Seconds between attempts to read a tourney file that is not valid right now.
RETRY_SECONDS = 2.0


async def _until_readable(
    transaction: Callable[..., _R], *args: Any, settled: Callable[[_R], None] | None = None
) -> _R:
    """Run a file transaction in a thread, waiting while the file is invalid.

    Someone may be editing the file by hand: a worker must neither die nor lose
    the game it just played, so it says what is wrong and tries again. When
    cancelled (a clean stop), the attempt under way still finishes, since a
    thread cannot be stopped, and ``settled`` learns its outcome; the waiting
    between attempts ends at once.
    """
    while True:
        attempt = asyncio.ensure_future(asyncio.to_thread(transaction, *args))
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            with contextlib.suppress(ConfigError):
                outcome = await attempt
                if settled is not None:
                    settled(outcome)
            raise
        except ConfigError as exc:
            log.error("%s; waiting for the file to be fixed", exc)
            await asyncio.sleep(RETRY_SECONDS)


class Worker:
    """One worker: plays the tourney's games one at a time until none is left."""

    def __init__(self, path: Path, *, max_games: int | None = None, log_engines: bool = False) -> None:
        self.path = path.resolve()
        self.owner = Owner.me()
        self.max_games = max_games
        self.log_engines = log_engines
        self.pool = EnginePool()
        self.playing: int | None = None
        self._books: dict[tuple[Path, str, int, str], OpeningBook | None] = {}

    # --- file transactions (each one short, under the lock) ---------------------------------

    def claim(self) -> tuple[Tourney, ScheduledGame] | str:
        """Claim the next game, or say :data:`~tmanager.core.schedule.WAIT` or ``DONE``."""
        with store.transaction(self.path) as tourney:
            for number, char in release_stale(tourney):
                what = "recovered from the PGN" if char != UNPLAYED else "will be replayed"
                log.warning("game %d: its worker is gone; the game %s", number, what)
            if swiss.pair_next_round(tourney):
                log.info("Swiss round %d paired: %s", len(tourney.swiss), tourney.swiss[-1])
            choice = next_game(
                tourney.schedule(),
                tourney.results,
                sync_after_round=tourney.settings.sync_after_round,
                sync_after_cycle=tourney.settings.sync_after_cycle,
            )
            if isinstance(choice, str):
                if choice == DONE and PLAYING in tourney.results:
                    return WAIT  # others are playing; stay to replay their games should they die
                return choice
            now = time.time()
            tourney.set_result(choice.number, PLAYING)
            tourney.claims[choice.number] = Claim(
                host=self.owner.host, pid=self.owner.pid, started=self.owner.started, claimed=now, heartbeat=now
            )
            return tourney, choice

    def record(self, number: int, record: GameRecord) -> tuple[Tourney, bool] | None:
        """Write the game to the PGN and its result to the file; ``None`` if the claim was lost.

        The second value says whether this result completed the tourney.
        """
        with store.transaction(self.path) as tourney:
            if not self.owner.owns(tourney.claims.get(number)) or tourney.result(number) != PLAYING:
                log.warning("game %d: claim was released meanwhile (reset or replaced); result discarded", number)
                return None
            pgn.append_game(tourney.pgn_path, record.pgn)
            if tourney.settings.epd_out:
                append_line(tourney.directory / tourney.settings.epd_out, record.epd)
            tourney.set_result(number, RESULT_CHAR[record.result])
            LiveGame.remove(tourney, number)
            for engine, kind in record.faults.items():
                tourney.count_fault(engine, kind)
            for engine, seconds in record.oversteps.items():
                tourney.note_overstep(engine, seconds)
            return tourney, tourney.is_complete()

    def release(self, number: int) -> None:
        """Give a claimed game back unplayed (clean stop)."""
        with store.transaction(self.path) as tourney:
            if self.owner.owns(tourney.claims.get(number)) and tourney.result(number) == PLAYING:
                tourney.set_result(number, UNPLAYED)
                LiveGame.remove(tourney, number)

    def heartbeat(self, number: int) -> None:
        with store.transaction(self.path) as tourney:
            claim = tourney.claims.get(number)
            if self.owner.owns(claim) and claim is not None:
                tourney.claims[number] = Claim(
                    claim.host, claim.pid, claim.started, claim.claimed, heartbeat=time.time()
                )

    # --- the loop ----------------------------------------------------------------------------

    async def run(self) -> int:
        """Play until the tourney is done (or ``max_games`` are played); returns games played."""
        played = 0
        try:
            while self.max_games is None or played < self.max_games:
                choice = await self._claim()
                if choice == DONE:
                    break
                if isinstance(choice, str):
                    await asyncio.sleep(POLL_SECONDS)
                    continue
                tourney, game = choice
                self.playing = game.number
                await self._play(tourney, game)
                self.playing = None
                played += 1
        finally:
            if self.playing is not None:
                try:
                    await asyncio.to_thread(self.release, self.playing)
                    log.info("game %d released unplayed", self.playing)
                except ConfigError as exc:
                    log.error("%s; game %d stays claimed and will be played again", exc, self.playing)
            await self.pool.close()
        return played

    async def _claim(self) -> tuple[Tourney, ScheduledGame] | str:
        # What a claim cut short by a stop took must be known, so that the clean stop can give it back.
        return await _until_readable(self.claim, settled=self._remember)

    def _remember(self, choice: tuple[Tourney, ScheduledGame] | str) -> None:
        if not isinstance(choice, str):
            self.playing = choice[1].number

    async def _play(self, tourney: Tourney, game: ScheduledGame) -> None:
        spec = game_spec(tourney, game, self._book(tourney), log_engines=self.log_engines)
        log.info("game %d: %s - %s started", game.number, spec.white.name, spec.black.name)
        beat = asyncio.create_task(self._heartbeats(game.number, tourney.settings.lease / 4))
        try:
            record = await self._run_game(tourney, game, spec)
        except ConfigError as exc:
            # An engine refuses its options or the variant: no game was played. run() gives
            # the game back, and the worker stops with this error (exit status 2).
            log.error("game %d not played: %s", game.number, exc)
            raise exc.located(file=tourney.path) from None
        finally:
            beat.cancel()
        outcome = await _until_readable(self.record, game.number, record)
        if outcome is None:
            return
        overstep = "" if record.worst_overstep is None else f" [worst overstep {record.worst_overstep * 1000:.0f} ms]"
        log.info(
            "game %d: %s - %s %s (%s)%s",
            game.number,
            spec.white.name,
            spec.black.name,
            record.result,
            record.reason,
            overstep,
        )
        tourney, complete = outcome
        s = tourney.settings
        if s.after_game:
            env = {
                "TMANAGER_GAME": str(game.number),
                "TMANAGER_RESULT": record.result,
                "TMANAGER_TERMINATION": record.termination,
                "TMANAGER_REASON": record.reason,
                "TMANAGER_WHITE": spec.white.name,
                "TMANAGER_BLACK": spec.black.name,
            }
            await asyncio.to_thread(run_hook, s.after_game, tourney=tourney, env=env, what="after_game")
        if complete and s.after_tourney:
            await asyncio.to_thread(run_hook, s.after_tourney, tourney=tourney, env={}, what="after_tourney")

    async def _run_game(self, tourney: Tourney, game: ScheduledGame, spec: GameSpec) -> GameRecord:
        """Play the claimed game here, publishing it live; a subclass may play it elsewhere."""
        return await play_game(spec, self.pool, on_move=LiveGame(tourney, game, spec))

    async def _heartbeats(self, number: int, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                await asyncio.to_thread(self.heartbeat, number)
            except ConfigError as exc:  # a half-saved hand edit: the next beat will do
                log.warning("heartbeat skipped: %s", exc)

    def _book(self, tourney: Tourney) -> OpeningBook | None:
        """The tourney's opening book, loaded again only when its settings change."""
        o = tourney.openings
        if o is None:
            return None
        key = (tourney.directory / o.file, o.format, o.plies, tourney.settings.variant)
        if key not in self._books:
            self._books[key] = load_book(tourney)
        return self._books[key]


def preflight(tourney: Tourney) -> None:
    """Check what can fail before any game is claimed: every engine resolves and can be
    started, and the opening book loads and fits the settings."""
    for index in range(len(tourney.participants)):
        tourney.engine_spec(index).check_runnable()
    load_book(tourney)


def load_book(tourney: Tourney) -> OpeningBook | None:
    """The tourney's opening book, checked against its settings; ``None`` without ``[openings]``."""
    o = tourney.openings
    if o is None:
        return None
    try:
        book = OpeningBook.load(
            tourney.directory / o.file, format=o.format, plies=o.plies, variant=tourney.settings.variant
        )
        book.opening_for(0, order=o.order, seed=o.seed, start=o.start)
    except ConfigError as exc:
        raise exc.located(file=tourney.path) from None
    return book


def work(path: Path, *, max_games: int | None = None, log_engines: bool = False) -> int:
    """Run one worker in this process until the tourney is done; SIGINT/SIGTERM stop it cleanly.
    ``log_engines`` writes engine logs as the tourney's ``log_engines`` setting does."""
    preflight(store.read(path))

    async def main() -> int:
        worker = Worker(path, max_games=max_games, log_engines=log_engines)
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        try:
            return await worker.run()
        except asyncio.CancelledError:
            log.info("worker stopped by signal")
            raise KeyboardInterrupt from None

    return asyncio.run(main())
