"""A worker's file transactions: retried while the file is unfit, until a stop."""

from __future__ import annotations

import asyncio

import pytest

from tmanager.errors import ConfigError
from tmanager.tourney import bookkeeping


def test_a_transaction_on_a_file_that_stays_unfit_ends_once_stopping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook runner, which a stop does not cancel (it ends once its hook is over), waited for ever on a file
    that stayed unfit (a lock file that is a link to nothing): `work` did not end by SIGTERM."""
    monkeypatch.setattr(bookkeeping, "RETRY_SECONDS", 0.01)
    attempts: list[int] = []

    def unfit() -> None:
        attempts.append(1)
        raise ConfigError("is a symbolic link to nothing", file="t.toml.lock")

    async def main() -> None:
        with pytest.raises(ConfigError, match="link to nothing"):
            await asyncio.wait_for(bookkeeping.transact(unfit, until=lambda: len(attempts) >= 3), timeout=10)

    asyncio.run(main())
    assert len(attempts) == 3  # retried until the stop, then said
