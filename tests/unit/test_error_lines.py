"""`run` shows what its workers say, and a one-line error once however many workers say it."""

from __future__ import annotations

import os

import pytest

from tmanager.cli import INTERRUPTED_LINE
from tmanager.tourney.processes import INTERRUPTED, ErrorLines

FULL = "cannot write (No space left on device, 0 kB free there); nothing was recorded (free some space, then run again)"


def test_a_fault_said_of_several_files_of_one_folder_is_shown_once(capsys: pytest.CaptureFixture[str]) -> None:
    lines = ErrorLines()
    try:
        said = [
            f"tmanager: /d/t.pgn: {FULL}",  # a full disk stops each worker at the file it was writing
            f"tmanager: /d/.t.toml.journal: {FULL.replace('0 kB', '4 kB')}",
            f"tmanager: /d/t.pgn: {FULL}",
            f"tmanager: /elsewhere/u.pgn: {FULL}",  # another folder: another disk, perhaps
            "tmanager: /d/t.toml: tourney.tc: '1+' is not a time control",
            "a worker's log line",
            "tmanager: interrupted",  # a worker `run` stopped as its loop closed: `run` tells of the stop itself
            "a worker's log line",
        ]
        os.write(lines.write_end, "".join(f"{line}\n" for line in said).encode())
        lines.show()
    finally:
        lines.close()
    assert capsys.readouterr().err.splitlines() == [said[0], said[3], said[4], said[5], said[7]]


def test_the_stop_run_does_not_show_is_the_line_a_stopped_command_says() -> None:
    assert INTERRUPTED == INTERRUPTED_LINE
