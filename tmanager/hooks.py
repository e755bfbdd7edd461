"""Hooks: the user's shell commands, run when something happened, with a time limit and one set of rules.

A hook runs through the shell (``/bin/sh -c``, so pipes, ``;`` and
redirections work) in the directory of the file that names it, with the
environment of tmanager plus ``TMANAGER_HOOK`` (the hook's name) and the
caller's ``TMANAGER_*`` variables (paths absolute), in a process group of its
own. One that runs over its time limit is stopped with its whole group (a
hung hook must never stall a worker or an arbiter). A hook that fails, cannot
start or is stopped is reported in the returned text; the caller says what
stands (the saved change, the recorded game), since nothing here knows.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Collection, Mapping
from pathlib import Path

#: Seconds a hook may run before it is stopped and reported.
TIMEOUT = 300.0


def run(
    command: str,
    *,
    name: str,
    directory: Path,
    variables: Mapping[str, str],
    hidden: Collection[str] = (),
    timeout: float = TIMEOUT,
) -> str | None:
    """Run hook ``name``'s ``command`` without the variables ``hidden`` of tmanager's own environment; what went
    wrong (``failed with status 3``…), or None when it succeeded."""
    env = {key: value for key, value in os.environ.items() if key not in hidden}
    env.update({"TMANAGER_HOOK": name, **variables})
    try:
        # The user's own command line, run through the shell by design.
        process = subprocess.Popen(command, shell=True, cwd=directory, env=env, start_new_session=True)
    except OSError as exc:
        return f"could not start ({exc.strerror})"
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return f"ran over {timeout:g} s and was stopped"
    return f"failed with status {status}" if status != 0 else None
