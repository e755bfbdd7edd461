"""Every command's ``EXAMPLES`` (the end of its ``--help``) as a person copies them: each line within 120 columns,
so a command cut across lines keeps its ``\\`` at each line's end."""

from __future__ import annotations

import importlib

import pytest

from tmanager.cli import COMMANDS, RAW_COMMANDS, build_parser


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_examples_fit_the_terminal_and_keep_their_line_breaks(name: str) -> None:
    examples = getattr(importlib.import_module(COMMANDS[name]), "EXAMPLES", "")
    too_wide = [line for line in examples.splitlines() if len(line) > 120]
    assert too_wide == []



@pytest.mark.parametrize("name", sorted(set(COMMANDS) - RAW_COMMANDS))
def test_help_tells_each_default_once_and_never_none(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's default formatter wrote '(default: None)' after every option without a value, and a second
    default after a help that told its own ('(default: 1) (default: None)')."""
    with pytest.raises(SystemExit):
        build_parser(name).parse_args([name, "--help"])
    options = " ".join(capsys.readouterr().out.split()).split(" -")  # one option's help a piece
    assert [o for o in options if "(default: None)" in o or o.count("(default") > 1] == []
