"""A worker's lanes counted and taking turns (:class:`LaneScheduler`), and the typed answers of a claim:
no file, no process (the claims are answered by a function here)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests.conftest import run_async
from tmanager.core.schedule import DONE, WAIT, NoGame, RoundRobin, ScheduledGame, next_game
from tmanager.tourney.lanes import ClaimAnswer, Claimed, LaneScheduler
from tmanager.tourney.model import Participant, Settings, Tourney


def claimed(number: int) -> Claimed:
    tourney = Tourney(Path("t.toml"), Settings(), [Participant("A", cmd="a"), Participant("B", cmd="b")])
    game = tourney.schedule().game(number)
    assert game is not None
    return Claimed(tourney, game)


def scheduler(*, max_games: int | None = None) -> LaneScheduler:
    """A scheduler whose tourney changes at every look: a waiting lane gets its turn at the next look."""
    return LaneScheduler(itertools.count().__next__, max_games=max_games)


def answering(*sequence: ClaimAnswer) -> tuple[list[ClaimAnswer], Callable[[], Awaitable[ClaimAnswer]]]:
    """A claim that answers ``sequence`` in turn, and the list of the answers it gave."""
    given: list[ClaimAnswer] = []

    async def attempt() -> ClaimAnswer:
        given.append(sequence[len(given)])
        return given[-1]

    return given, attempt


def nothing() -> None:
    """What a waiting lane's worker does here."""


def test_the_schedule_answers_a_game_or_why_there_is_none() -> None:
    schedule = RoundRobin(2, games_per_pairing=2)
    assert isinstance(next_game(schedule, "+"), ScheduledGame)
    assert next_game(schedule, "+*") is NoGame.DONE
    assert next_game(schedule, "+*", sync_after_cycle=True) is NoGame.DONE
    assert next_game(RoundRobin(2, games_per_pairing=2, cycles=2), "+*", sync_after_cycle=True) is NoGame.WAIT


def test_lanes_are_started_to_the_number_wanted_and_the_surplus_retires_as_it_comes_to_claim() -> None:
    lanes = scheduler()
    assert lanes.resize(3) == 3 and lanes.staying == 3
    assert lanes.resize(1) == 0  # none is stopped: they retire one by one as they come to claim
    assert [lanes.retire() for _ in range(3)] == [True, True, False]
    assert lanes.staying == 1
    assert lanes.resize(2) == 1 and lanes.staying == 2


def test_a_claim_that_finds_a_game_answers_it_and_counts_it() -> None:
    lanes = scheduler()
    lanes.resize(1)
    given, attempt = answering(claimed(0))
    idle: list[None] = []
    answer = run_async(lanes.claim(attempt, idle=lambda: idle.append(None)))
    assert answer == claimed(0) and given == [answer] and lanes.claimed == 1 and not idle


def test_a_lane_waits_for_its_turn_while_no_game_is_free_and_ends_when_none_is_left() -> None:
    lanes = scheduler()
    lanes.resize(1)
    given, attempt = answering(WAIT, WAIT, claimed(1), DONE)
    idle: list[None] = []

    async def two_claims() -> tuple[ClaimAnswer, ClaimAnswer]:
        return await lanes.claim(attempt, idle=lambda: idle.append(None)), await lanes.claim(attempt, idle=nothing)

    first, second = run_async(asyncio.wait_for(two_claims(), timeout=30))
    assert first == claimed(1) and len(idle) == 2  # each wait says so (the worker looks for hooks to run)
    assert second is DONE and len(given) == 4
    assert lanes.claimed == 1  # the answers without a game are not counted


def test_lanes_stop_claiming_at_the_games_asked_for_and_at_a_stop() -> None:
    lanes = scheduler(max_games=2)
    lanes.resize(2)
    given, attempt = answering(claimed(0), claimed(1), claimed(0))
    results = [run_async(lanes.claim(attempt, idle=nothing)) for _ in range(3)]
    assert results == [claimed(0), claimed(1), DONE] and len(given) == 2  # no third claim was made
    assert lanes.staying == 1
    lanes.stop()
    assert run_async(lanes.claim(attempt, idle=nothing)) is DONE and len(given) == 2 and lanes.staying == 0
