"""Claims given back on a tourney in memory: a dead worker's, and a live worker's strays (no process started)."""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from pathlib import Path

from tmanager.tourney.claims import give_back_strays, release_stale
from tmanager.tourney.engines import Protocol
from tmanager.tourney.model import PLAYING, UNPLAYED, Claim, Participant, Settings, Tourney
from tmanager.tourney.owners import Owner, since_boot

#: The worker here: this process, alive.
ME = Owner.me()
#: Another worker, alive (pytest's parent process).
OTHER = dataclasses.replace(ME, pid=os.getppid(), started=since_boot(os.getppid()))
#: A worker on this host that no longer lives (no process has this pid with this start time).
DEAD = Owner(socket.gethostname(), os.getpid(), 1.0)


def claim(owner: Owner) -> Claim:
    now = time.time()
    return Claim(owner.host, owner.pid, owner.started, claimed=now, heartbeat=now, boot=owner.boot)


def tourney(tmp_path: Path, results: str, claims: dict[int, Owner]) -> Tourney:
    """A match of len(results) games, ``claims`` its claims; no PGN written (no game is found there)."""
    t = Tourney(
        path=tmp_path / "t.toml",
        settings=Settings(),
        participants=[Participant(name, cmd=name.lower(), protocol=Protocol.UCI) for name in ("A", "B")],
        results=results,
    )
    t.claims.update({number: claim(owner) for number, owner in claims.items()})
    return t


def test_a_live_workers_strays_end_a_game_in_progress_is_given_back_one_with_a_result_keeps_it(
        tmp_path: Path) -> None:
    # Game 0 is the worker's own; a journal put back from an older copy brought back its claims on game 1,
    # which it gave back since, and on game 2, since recovered from the PGN after the journal was cut.
    t = tourney(tmp_path, f"{PLAYING}{PLAYING}+{PLAYING}", {0: ME, 1: ME, 2: ME, 3: OTHER})
    assert give_back_strays(t, ME, held={0}) == [(1, UNPLAYED)]
    assert sorted(t.claims) == [0, 3]  # its held game and another worker's stay
    assert t.results[:4] == f"{PLAYING}{UNPLAYED}+{PLAYING}"


def test_release_stale_gives_back_a_dead_workers_games_and_keeps_a_live_workers_claim_on_a_finished_game(
        tmp_path: Path) -> None:
    t = tourney(tmp_path, f"{PLAYING}={PLAYING}+", {0: DEAD, 1: DEAD, 2: OTHER, 3: OTHER})
    assert release_stale(t) == [(0, UNPLAYED)]
    # The dead worker's claim on a game with a result is dropped; the live worker's stays for it to end.
    assert sorted(t.claims) == [2, 3]
    assert t.results[:4] == f"{UNPLAYED}={PLAYING}+"
