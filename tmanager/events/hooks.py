"""Event hooks, as tsh's ``hook_addscore_flush`` and ``hook_division_complete``.

The ``[hooks]`` table of an event file names shell commands:

* ``after_results`` runs after results were saved (``result``, ``correct``, the
  shell's result entry, the arbiter's web page);
* ``round_complete`` runs when the last missing result of a round went in.

Each runs by :func:`tmanager.hooks.run` (the shell, the event file's
directory, a time limit) after the change is written and the lock released,
with the variables ``TMANAGER_EVENT`` (the event file, absolute),
``TMANAGER_DIVISION`` and ``TMANAGER_ROUND``. A hook that fails is reported as
a warning; the saved change stands and nothing else is affected.
"""

from __future__ import annotations

from pathlib import Path

from tmanager import hooks
from tmanager.events.journal import load


def after_results(path: Path, division: str, round_number: int, *, completed: bool) -> list[str]:
    """Run ``after_results``, then ``round_complete`` when this change completed ``round_number``; the warnings."""
    commands = load(path).hooks
    run = [("after_results", commands.get("after_results"))]
    if completed:
        run.append(("round_complete", commands.get("round_complete")))
    variables = {"TMANAGER_EVENT": str(path.resolve()), "TMANAGER_DIVISION": division,
                 "TMANAGER_ROUND": str(round_number)}  # fmt: skip
    warnings = []
    for name, command in run:
        if not command:
            continue
        problem = hooks.run(command, name=name, directory=path.resolve().parent, variables=variables)
        if problem:
            warnings.append(f"warning: hook {name} {problem}; the change is saved")
    return warnings
