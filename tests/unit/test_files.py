"""What is said of a path that holds no regular file, where one is wanted (no process started)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tmanager.errors import ConfigError
from tmanager.files import expect_file


def test_a_directory_or_a_fifo_is_refused_with_the_way_out(tmp_path: Path) -> None:
    """Without a hint of its caller's, it said none ("tmanager: /tmp: is a directory"), where every refusal says how
    to fix it; a caller's own hint comes first."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, what in ((tmp_path, "is a directory"), (fifo, "is not a regular file but a FIFO")):
        with pytest.raises(ConfigError) as caught:
            expect_file(path)
        assert str(caught.value) == f"{path}: {what} (name a regular file, or move this away)"
        with pytest.raises(ConfigError) as caught:
            expect_file(path, hint="give the path of the tourney file")
        assert caught.value.hint == "give the path of the tourney file"
    assert expect_file(tmp_path / "absent") is False
