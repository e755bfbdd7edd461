"""Event hooks, as tsh's ``hook_addscore_flush`` and ``hook_division_complete``.

The ``[hooks]`` table of an event file names shell commands:

* ``after_results`` runs after results were saved (``result``, ``correct``, the
  shell's result entry);
* ``round_complete`` runs when the last missing result of a round went in.

Each runs through the shell (``/bin/sh -c``) in the event file's directory,
after the change is written and the lock released, with the environment
variables ``TMANAGER_EVENT`` (the event file, absolute), ``TMANAGER_DIVISION``,
``TMANAGER_ROUND`` and ``TMANAGER_HOOK`` (the hook's name). A hook that fails
(non-zero status, cannot start, or runs over :data:`TIMEOUT` seconds) is
reported as a warning; the saved change stands and nothing else is affected.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tmanager import event as ev

#: Seconds a hook may run before it is stopped and reported.
TIMEOUT = 300.0


def run(path: Path, event: ev.Event, name: str, *, division: str, round_number: int) -> list[str]:
    """Run hook ``name`` of ``event`` if set; returns warnings (empty when it succeeded or is not set)."""
    command = event.hooks.get(name)
    if not command:
        return []
    env = {
        **os.environ,
        "TMANAGER_EVENT": str(path.resolve()),
        "TMANAGER_DIVISION": division,
        "TMANAGER_ROUND": str(round_number),
        "TMANAGER_HOOK": name,
    }
    try:
        # The arbiter's own command line, run through the shell by design (pipes, `;`, redirections).
        done = subprocess.run(command, shell=True, cwd=path.resolve().parent, env=env, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return [f"warning: hook {name} ran over {TIMEOUT:g} s and was stopped; the change is saved"]
    except OSError as exc:
        return [f"warning: hook {name} could not start ({exc.strerror}); the change is saved"]
    if done.returncode != 0:
        return [f"warning: hook {name} failed with status {done.returncode}; the change is saved"]
    return []


def after_results(path: Path, division: str, round_number: int, *, completed: bool) -> list[str]:
    """Run ``after_results``, then ``round_complete`` when this change completed ``round_number``."""
    event = ev.load(path)
    warnings = run(path, event, "after_results", division=division, round_number=round_number)
    if completed:
        warnings += run(path, event, "round_complete", division=division, round_number=round_number)
    return warnings
