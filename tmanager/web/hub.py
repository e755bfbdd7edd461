"""One watcher shared by every viewer: it polls the tourney's files, renders what changed once,
and streams the changes to all viewers as server-sent events.

Polling a few ``stat`` calls ten times a second costs nothing, sees every
writer (a worker, the CLI, an editor, another host on a shared file system)
and needs no platform-specific notification API. Each viewer is sent only
the sections that changed since the version it has; a slow viewer skips
intermediate versions instead of queueing them, so one stalled browser
cannot hold memory or delay the others.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

from tmanager.errors import TManagerError
from tmanager.files import Stamp, stamp
from tmanager.tourney import store
from tmanager.tourney.claims import stale_games
from tmanager.tourney.live import GameInProgress
from tmanager.tourney.model import PLAYING, Tourney
from tmanager.tourney.progress import games_planned
from tmanager.web import dashboard
from tmanager.web.pgnindex import PgnIndex
from tmanager.web.redact import Redactor

log = logging.getLogger("tmanager.web")

#: How often the files are looked at (a few stat calls: 20 times a second costs well under 1 % of a core).
POLL_SECONDS = 0.05
#: A comment line sent when nothing changed for this long, so that proxies and browsers keep the stream open.
KEEPALIVE_SECONDS = 15.0
#: Finished games the finish-time estimate looks back on.
ESTIMATE_WINDOW = 20
#: How often the owners of the games in progress are looked at (a process table entry each, or a heartbeat).
OWNERS_SECONDS = 1.0

_LIVE_FILE = re.compile(r"\d+\.json")

def first_version() -> int:
    """The version of a server's first state: the time it started, in ms. Counted from 0, a server started
    again gave a page left open (whose stream comes back with the version it has) a version of its own
    before the restart: the page was then sent nothing until the next change, a finished tourney never."""
    return time.time_ns() // 1_000_000


def live_stamps(directory: Path) -> dict[str, Stamp]:
    """The stamp of each published game in progress."""
    try:
        with os.scandir(directory) as entries:
            names = [e.name for e in entries if _LIVE_FILE.fullmatch(e.name)]
    except OSError:
        return {}
    return {name: stamp(directory / name) for name in names}


class FinishEstimate:
    """When the tourney will end, from the pace at which the server saw games finish."""

    def __init__(self) -> None:
        self._seen: collections.deque[tuple[float, int]] = collections.deque(maxlen=ESTIMATE_WINDOW + 1)

    def update(self, done: int, total: int, *, now: float) -> float | None:
        """Note the number of finished games; the expected finish time (epoch seconds) or ``None`` if unknown."""
        if not self._seen or done < self._seen[-1][1]:
            self._seen.clear()  # first look, or games were reset: start over
            self._seen.append((now, done))
        elif done > self._seen[-1][1]:
            self._seen.append((now, done))
        (t0, d0), (t1, d1) = self._seen[0], self._seen[-1]
        if d1 == d0 or t1 <= t0 or done >= total:
            return None
        return t1 + (total - d1) * (t1 - t0) / (d1 - d0)


class Watcher:
    """Looks at files every ``poll`` seconds in a worker thread and wakes every waiting stream on a change.

    Subclasses say what looking means (:meth:`refresh`) and call :meth:`wake`
    when they have something new; streams wait with :meth:`wait`.
    """

    def __init__(self, *, poll: float) -> None:
        self.poll = poll
        self.closed = False
        self._changed = asyncio.Event()  # bound to the running loop only when first awaited
        self._task: asyncio.Task[None] | None = None
        self._looking = asyncio.Lock()

    async def refresh(self, *, first: bool) -> None:
        """Look at the files and publish what changed; ``first`` publishes even if nothing did."""
        raise NotImplementedError

    async def look(self, *, first: bool = False) -> None:
        """:meth:`refresh`, after any look under way: when it returns, what the files held when it was
        called is published. (A look that found a changed stamp takes it before it reads the file, so
        another one at the same instant finds nothing new: unserialised, an arbiter's action that looked
        before redirecting could show the page before the action, while the watcher still read it.)"""
        async with self._looking:
            await self.refresh(first=first)

    async def start(self) -> None:
        """Publish the first state, then keep watching in the background."""
        await self.look(first=True)
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        """Stop watching and end every stream."""
        self.closed = True
        self._changed.set()
        if self._task is not None:
            self._task.cancel()

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.poll)
            try:
                await self.look()
            except Exception:  # a bug must not stop the live view for everyone; log it and go on
                log.exception("live update failed")

    def wake(self) -> None:
        """Wake every stream waiting for a change."""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait(self) -> bool:
        """Until the next change or the end (``True``), or :data:`KEEPALIVE_SECONDS` without one (``False``)."""
        event = self._changed
        if self.closed:
            return True
        try:
            async with asyncio.timeout(KEEPALIVE_SECONDS):
                await event.wait()
        except TimeoutError:
            return False
        return True


class Hub(Watcher):
    """The current dashboard of one tourney file, and the event streams of its viewers."""

    def __init__(self, path: Path, *, show_engines: bool = False, poll: float = POLL_SECONDS) -> None:
        super().__init__(poll=poll)
        self.path = path.resolve()
        self.show_engines = show_engines
        self.version = first_version()
        self._published = False
        self.done = 0
        self.fragments: dict[str, str] = {}
        self.tourney: Tourney | None = None
        self.redact = Redactor.nothing()  # until the file is read: nothing rendered yet
        self.pgn: PgnIndex | None = None
        self._stamps: tuple[Stamp, Stamp] = (None, None)
        self._sections: dict[str, str] = {}
        self._standings_key: tuple[str, tuple[str, ...]] | None = None
        self._games: dict[str, tuple[Stamp, str]] = {}
        self._gone: frozenset[int] = frozenset()  # games in progress whose worker is gone (stale claims)
        self._owners_seen = -OWNERS_SECONDS
        self._estimate = FinishEstimate()
        self._notice = ""
        self._delta = b""
        self._full: tuple[int, bytes] | None = None

    # --- watching (runs in a worker thread) ---------------------------------------------------

    def scan(self) -> dict[str, str] | None:
        """Look at the files; the new fragments if anything changed, else ``None``."""
        tourney_stamp = stamp(self.path)
        pgn_stamp = stamp(self.tourney.pgn_path) if self.tourney else None
        file_changed = (tourney_stamp, pgn_stamp) != self._stamps
        if file_changed:
            self._stamps = (tourney_stamp, pgn_stamp)
            self._read_tourney()
        tourney = self.tourney
        if tourney is None:
            return {"notice": dashboard.notice(self._notice)} if file_changed else None
        live = live_stamps(tourney.live_dir)
        games_changed = set(live) != set(self._games) or any(self._games[n][0] != s for n, s in live.items())
        if self._look_at_owners(tourney):
            games_changed, self._games = True, {}  # every card again: whether its worker is gone changed
        if not (file_changed or games_changed):
            return None
        if games_changed:
            self._render_games(tourney, live)
        if file_changed:
            self._render_sections(tourney)
        fragments = dict(self._sections)
        for name, (_, card) in self._games.items():
            number = int(name.removesuffix(".json"))
            if tourney.result(number) == PLAYING:  # a result just recorded hides its board at once
                fragments[f"game-{number}"] = card
        return fragments

    def _read_tourney(self) -> None:
        try:
            tourney = store.read(self.path)
        except TManagerError as exc:
            # The message names the file: it goes to the owner's terminal, never to the page.
            log.warning("cannot read the tourney file, showing the last state read: %s", exc)
            self._notice = "The tourney file cannot be read just now; this is the last state read."
            return
        self._notice = ""
        if not self.show_engines:
            self.redact = Redactor.for_tourney(tourney)
        if self.pgn is None or self.pgn.path != tourney.pgn_path:
            self.pgn = PgnIndex(tourney.pgn_path)
        self.pgn.refresh()
        self.tourney = tourney
        self._stamps = (self._stamps[0], stamp(tourney.pgn_path))

    def _look_at_owners(self, tourney: Tourney) -> bool:
        """Whether the games in progress whose worker is gone changed: looked at every
        :data:`OWNERS_SECONDS` (a worker killed changes no file), not at every change of a busy file."""
        now = time.monotonic()
        if now - self._owners_seen < OWNERS_SECONDS:
            return False
        self._owners_seen = now
        gone = frozenset(stale_games(tourney)) if PLAYING in tourney.results else frozenset()
        changed, self._gone = gone != self._gone, gone
        return changed

    def _render_sections(self, tourney: Tourney) -> None:
        self.done = tourney.finished_count
        finish = self._estimate.update(self.done, games_planned(tourney), now=time.time())
        sections = {
            "head": dashboard.head(tourney),
            "notice": dashboard.notice(self._notice),
            "progress": dashboard.progress(tourney, finish_at=finish),
            "results": dashboard.recent_results(tourney, self.pgn.recent(3 * dashboard.RECENT_RESULTS)
                                                if self.pgn else []),
            "faults": dashboard.faults(tourney),
            "match": dashboard.match(tourney),
            "tune": dashboard.tune(tourney),
        }  # fmt: skip
        if self.show_engines:
            sections["engines"] = dashboard.engines(tourney)
        key = (tourney.results, tuple(p.name for p in tourney.participants))
        if key != self._standings_key:  # the rating fit is the costly part: only after a result
            standings, table = dashboard.standings_and_crosstable(tourney)
            self._sections.update(standings=standings, crosstable=table, chart=dashboard.score_chart(tourney))
            self._standings_key = key
        keep = {k: self._sections[k] for k in ("standings", "crosstable", "chart")}
        self._sections = {k: self.redact(v) for k, v in {**sections, **keep}.items()}

    def _render_games(self, tourney: Tourney, live: dict[str, Stamp]) -> None:
        games = {}
        for name, file_stamp in live.items():
            cached = self._games.get(name)
            if cached is not None and cached[0] == file_stamp:
                games[name] = cached
                continue
            game = GameInProgress.load(tourney.live_dir / name)
            if game is not None:
                card = dashboard.game_card(game, has_clock=tourney.plays_on_a_clock, gone=game.number in self._gone)
                games[name] = (file_stamp, self.redact(card))
        self._games = games

    # --- publishing (runs in the event loop) --------------------------------------------------

    async def refresh(self, *, first: bool) -> None:
        fragments = await asyncio.to_thread(self.scan)
        if fragments is not None or first:
            self.publish(fragments or {})

    def publish(self, fragments: dict[str, str]) -> None:
        """Make ``fragments`` the current state and wake every stream if anything changed."""
        changed = {k: v for k, v in fragments.items() if self.fragments.get(k) != v}
        dropped = [k for k in self.fragments if k not in fragments]
        if self._published and not changed and not dropped:
            return
        self._published = True
        self.version += 1
        self.fragments = fragments
        self._delta = self._body(changed, dropped)
        self._full = None
        self.wake()

    def _body(self, changed: dict[str, str], dropped: list[str], *, full: bool = False) -> bytes:
        # "v" and "done" come first: a client can read them without parsing the fragments.
        body: dict[str, object] = {"v": self.version, "done": self.done, "set": changed, "drop": dropped}
        if full:
            # The whole state: what the viewer has that it leaves out (the card of a game that ended while
            # the viewer was behind) is gone, though no "drop" can name it (the server knows not what it has).
            body["full"] = True
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))[1:].encode()

    def _full_body(self) -> bytes:
        if self._full is None or self._full[0] != self.version:
            self._full = (self.version, self._body(self.fragments, [], full=True))
        return self._full[1]

    def _frame(self, body: bytes) -> bytes:
        # The server's time goes into each message as sent, so browsers can run clocks without skew.
        return b'id: %d\ndata: {"now":%.3f,' % (self.version, time.time()) + body + b"\n\n"

    async def stream(self, since: int | None) -> AsyncIterator[bytes]:
        """Server-sent events for one viewer whose page shows version ``since`` (``None``: none)."""
        seen = since if since == self.version else None
        yield b"retry: 2000\n\n"
        while not self.closed:
            if seen != self.version:
                body = self._delta if seen == self.version - 1 else self._full_body()
                seen = self.version
                yield self._frame(body)
                continue
            if not await self.wait():
                yield b": keepalive\n\n"

    def page(self) -> str:
        """The whole dashboard as it stands."""
        title = self.tourney.settings.name if self.tourney else "tourney"
        return dashboard.page(self.fragments, title=title, version=self.version)
