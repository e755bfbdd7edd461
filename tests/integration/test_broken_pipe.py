"""Output piped into a reader that leaves early (`tmanager … | head`) ends quietly, never in a traceback; output
sent to a full disk ends in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

EVENT = ROOT / "tourneys" / "events" / "small-open.toml"
TRF = ROOT / "tests" / "data" / "bbp" / "random-44.trf"
TOURNEY = ROOT / "tourneys" / "round-robin.toml"


def run_into_closed_pipe(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """`python -m tmanager ARGS` writing into a pipe whose reader is already gone: every write fails with EPIPE."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "tmanager", *map(str, args)],
            stdout=writer, stderr=subprocess.PIPE, timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(writer)


@pytest.mark.parametrize(
    "args",
    [
        ("event", "pairings", EVENT),
        ("event", "standings", EVENT),
        ("pair", "--dutch", TRF, "-c"),
        ("status", TOURNEY),
    ],
    ids=["event-pairings", "event-standings", "pair-check", "status"],
)
def test_a_reader_that_left_gets_no_traceback(args: tuple[str | Path, ...]) -> None:
    done = run_into_closed_pipe(*args)
    assert done.stderr == b"", done.stderr.decode()
    assert done.returncode == 1


def test_head_of_a_real_pipeline_ends_quietly(tmp_path: Path) -> None:
    """The shell pipeline as an arbiter types it; `head` leaves after one line of a long listing."""
    event = tmp_path / "open.toml"
    shutil.copy(EVENT, event)
    command = f"{sys.executable} -m tmanager event pairings {event} | head -n 1; " * 20
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0
    assert done.stderr == ""
    assert done.stdout.splitlines()[0].startswith("Leiden Spring Open 2026")


@pytest.mark.parametrize(
    "args",
    [
        ("event", "pairings", EVENT),
        ("pair", "--dutch", TRF, "-c"),
        ("status", TOURNEY),
        ("crosstable", "games.pgn"),
    ],
    ids=["event-pairings", "pair-check", "status", "crosstable"],
)
def test_output_to_a_full_disk_is_one_line(args: tuple[str | Path, ...], tmp_path: Path) -> None:
    """`> report.txt` on a full disk (here /dev/full, which refuses every write as a full disk does): Python's
    OSError traceback, exit status 1, from whichever print filled the buffer."""
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n[White "B"]\n[Black "A"]\n[Result "1/2-1/2"]\n\n'
                   "1/2-1/2\n\n")
    args = tuple(pgn if arg == "games.pgn" else arg for arg in args)
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "tmanager", *map(str, args)], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    assert (done.returncode, done.stderr) == (2, "tmanager: standard output: cannot write: No space left on device "
                                                 "(free some space, or send the output elsewhere)\n")
