"""Every command's ``EXAMPLES`` (the end of its ``--help``) as a person copies them: each line within 120 columns,
so a command cut across lines keeps its ``\\`` at each line's end."""

from __future__ import annotations

import importlib

import pytest

from tmanager.cli import COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_examples_fit_the_terminal_and_keep_their_line_breaks(name: str) -> None:
    examples = getattr(importlib.import_module(COMMANDS[name]), "EXAMPLES", "")
    too_wide = [line for line in examples.splitlines() if len(line) > 120]
    assert too_wide == []
