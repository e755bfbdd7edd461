"""Shared fixtures: running the real `tmanager` command and writing tourney files."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args: str | Path, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run `python -m tmanager ARGS` as a real process."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tmanager", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def write_tourney(tmp_path: Path) -> Callable[[str], Path]:
    """Write tourney-file text into a fresh directory and return its path."""

    def write(text: str, name: str = "t.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write
