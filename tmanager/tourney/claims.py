"""Claimed games whose owner is gone, found and given back.

A claim records its owner (host, pid, process start time; see
:mod:`tmanager.tourney.owners`) and a heartbeat. On the owner's host, the process
table says whether it lives; elsewhere only the heartbeat can, within the
tourney's lease. A claim whose owner is gone is released and its game replayed,
unless the owner had already appended the game to the PGN: then the game keeps
the result found there, and its hooks become due (:func:`give_back`). Workers
release stale claims at every claim, `tmanager reset-stale` by hand; both under
the lock, and neither needs the engine layer. A worker also gives back, as it
claims and as it ends, the claims of its own that none of its lanes holds, which
only a journal put back from an older copy makes (:func:`give_back_strays`).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Collection

from tmanager.core.results import Result
from tmanager.formats import pgn
from tmanager.tourney import tuning
from tmanager.tourney.hookrun import add_hooks_found
from tmanager.tourney.live import LiveGame
from tmanager.tourney.model import PLAYING, UNPLAYED, Claim, Tourney
from tmanager.tourney.owners import Owner, process_is_alive, reap_engines


def claim_is_alive(claim: Claim, *, lease: float, now: float, host: str | None = None) -> bool:
    """Whether a claim's owner may still be playing: a live process on this host, or a fresh heartbeat."""
    if claim.host != (host or socket.gethostname()):
        return now - claim.heartbeat < lease
    return process_is_alive(claim.pid, claim.started, boot=claim.boot)


def stale_games(tourney: Tourney, *, now: float | None = None) -> list[int]:
    """Games marked ``*`` whose owner is gone (or unknown, as in a file written by XBoard)."""
    now = time.time() if now is None else now
    lease = tourney.settings.lease
    host = socket.gethostname()
    # One look per owner: the claims of one process's lanes share their owner, whose process table
    # entry answers for all of them. Each claim has a heartbeat of its own (set when it was made), which
    # decides only for owners on other hosts.
    verdicts: dict[tuple[str, int, float, str, float], bool] = {}

    def stale(number: int) -> bool:
        claim = tourney.claims.get(number)
        if claim is None:
            return True
        key = (claim.host, claim.pid, claim.started, claim.boot, claim.heartbeat if claim.host != host else 0.0)
        if key not in verdicts:
            verdicts[key] = claim_is_alive(claim, lease=lease, now=now, host=host)
        return not verdicts[key]

    return [n for n in tourney.playing() if stale(n)]


def release_stale(tourney: Tourney) -> list[tuple[int, str]]:
    """Release every stale claim; a game already in the PGN keeps its result and gets its hooks.

    Returns (game, new results character) for each. Claims of workers gone left on games no longer
    marked ``*`` (a hand edit) are dropped, and engines of dead workers are killed. A live worker's claim on
    such a game stays: that worker ends it at its game's end, saying what became of the game.
    """
    released = [(number, give_back(tourney, number)) for number in stale_games(tourney)]
    now, lease = time.time(), tourney.settings.lease
    for number, claim in list(tourney.claims.items()):
        if tourney.result(number) != PLAYING and not claim_is_alive(claim, lease=lease, now=now):
            del tourney.claims[number]
    if released:
        reap_engines(tourney.path)
    return released


def give_back_strays(tourney: Tourney, owner: Owner, *, held: Collection[int]) -> list[tuple[int, str]]:
    """Give back the games in progress claimed by ``owner``, a live worker, that it does not hold: their claims
    came back with a journal put back from an older copy, after the worker had recorded or given back the
    games. It never plays them again, and no other worker takes a game whose owner lives.

    Returns (game, new results character) for each, as :func:`release_stale` does. A stray on a game with a
    result (recovered from the PGN after the journal was cut, or typed by hand) just ends: :func:`release_stale`
    keeps a live worker's claims on such games for the worker to end, and this is where it ends those it no
    longer holds."""
    strays = [n for n, claim in tourney.claims.items() if owner.owns(claim) and n not in held]
    given = []
    for number in strays:
        if tourney.result(number) == PLAYING:
            given.append((number, give_back(tourney, number)))
        else:
            del tourney.claims[number]
    return given


def give_back(tourney: Tourney, number: int) -> str:
    """End the claim on game ``number``: the game is not played, unless it is already in the PGN (its
    worker died, or failed to write, after appending it): then it keeps that result and gets its hooks.
    Returns the game's new results character."""
    claim = tourney.claims.get(number)
    found = pgn.find_game(tourney.pgn_path, number, start=claim.pgn_offset if claim else 0)
    char = Result.from_pgn(found.result).xboard if found else UNPLAYED
    tourney.set_result(number, char)
    if found is not None and char != UNPLAYED:
        tuning.advance(tourney)
        add_hooks_found(tourney, number, found)
    LiveGame.remove(tourney, number)
    return char
