"""The unit tests: the pure core, with no process. A unit test that starts one fails, so the folder stays what
its name says and runs in seconds (real processes are the integration tests' part, tests/integration/)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

#: The audit events of every way Python starts a process (asyncio's subprocesses go through subprocess.Popen).
SPAWNING = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.exec",
                      "os.system"})  # fmt: skip
_guarding = [False]


class ProcessStarted(AssertionError):
    """A unit test started a process."""


def _refuse_processes(event: str, args: tuple[object, ...]) -> None:
    if _guarding[0] and event in SPAWNING:
        raise ProcessStarted(f"a unit test started a process ({event}): it belongs in tests/integration/")


# An audit hook cannot be removed once added, so it is added once and switched on for each unit test.
sys.addaudithook(_refuse_processes)


@pytest.fixture(autouse=True)
def no_process() -> Iterator[None]:
    _guarding[0] = True
    try:
        yield
    finally:
        _guarding[0] = False
