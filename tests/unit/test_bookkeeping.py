"""A worker's file transactions: retried while the file is unfit, until a stop."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tmanager.errors import ConfigError
from tmanager.tourney import bookkeeping


def test_a_transaction_on_a_file_that_stays_unfit_ends_once_stopping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook runner, which a stop does not cancel (it ends once its hook is over), waited for ever on a file
    that stayed unfit (a lock file that is a link to nothing): `work` did not end by SIGTERM."""
    monkeypatch.setattr(bookkeeping, "RETRY_SECONDS", 0.01)
    attempts: list[int] = []

    def read_unfit_file() -> None:
        attempts.append(1)
        raise ConfigError("is a symbolic link to nothing", file="t.toml.lock")

    async def main() -> None:
        with pytest.raises(ConfigError, match="link to nothing"):
            await asyncio.wait_for(
                bookkeeping.transact(read_unfit_file, unfit=bookkeeping.UnfitFiles(), until=lambda: len(attempts) >= 3),
                timeout=10,
            )

    asyncio.run(main())
    assert len(attempts) == 3  # retried until the stop, then said


def test_a_file_that_stays_unfit_is_said_once_not_at_every_attempt(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker said the same error every 2 s while a file stayed unfit (a line a second in a log of two lanes, all
    night for a file left broken): once now, then every 30 s while it lasts; another error at once."""
    monkeypatch.setattr(bookkeeping, "RETRY_SECONDS", 0.001)
    said_by_worker = bookkeeping.UnfitFiles()
    errors = ["tourney.tc: bad time control 'x'"] * 20 + ["tourney.tc: bad time control 'y'"] * 20

    def read_unfit_file() -> None:
        if errors:
            raise ConfigError(errors.pop(0), file="t.toml")

    async def main() -> None:
        # Two at once, as a worker's lanes each wait on the file.
        await asyncio.gather(bookkeeping.transact(read_unfit_file, unfit=said_by_worker),
                             bookkeeping.transact(read_unfit_file, unfit=said_by_worker))

    with caplog.at_level(logging.ERROR, logger="tmanager"):
        asyncio.run(main())
    said = [r.getMessage() for r in caplog.records]
    assert said == ["t.toml: tourney.tc: bad time control 'x'; waiting for the file to be fixed",
                    "t.toml: tourney.tc: bad time control 'y'; waiting for the file to be fixed"]
    monkeypatch.setattr(bookkeeping, "LOCK_WARN_SECONDS", 0.0)  # its time over: said again
    errors.append("tourney.tc: bad time control 'y'")
    with caplog.at_level(logging.ERROR, logger="tmanager"):
        asyncio.run(main())
    assert len(caplog.records) == 3
