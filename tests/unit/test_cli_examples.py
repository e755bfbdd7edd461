"""Every command's ``EXAMPLES`` (the end of its ``--help``) as a person copies them: each line within 120 columns,
so a command cut across lines keeps its ``\\`` at each line's end."""

from __future__ import annotations

import contextlib
import importlib
import io
import re

import pytest

from tmanager.cli import RAW_COMMANDS, main
from tmanager.cli._dispatch import COMMANDS, build_parser


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_examples_fit_the_terminal_and_keep_their_line_breaks(name: str) -> None:
    examples = getattr(importlib.import_module(COMMANDS[name]), "EXAMPLES", "")
    too_wide = [line for line in examples.splitlines() if len(line) > 120]
    assert too_wide == []



def _help(*words: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        build_parser(words[0]).parse_args([*words, "--help"])
    return out.getvalue()


#: The verbs ``tmanager event --help`` lists, each on a line of its own indented by four spaces.
EVENT_VERBS = re.findall(r"^    ([a-z][a-z-]*)", _help("event"), flags=re.MULTILINE)
#: Every help but fastchess's (which prints its own): each command's, and each event verb's.
HELPS = [(name,) for name in sorted(set(COMMANDS) - RAW_COMMANDS)] + [("event", verb) for verb in EVENT_VERBS]


def test_event_verbs_are_listed() -> None:
    assert {"new", "pair", "result", "standings", "shell"} <= set(EVENT_VERBS)


@pytest.mark.parametrize("words", HELPS)
def test_help_tells_each_default_once_and_never_none(words: tuple[str, ...]) -> None:
    """argparse's default formatter wrote '(default: None)' after every option without a value, '(default: )'
    and '(default: [])' after an empty one, '(default: False)' after every flag, and a second default after a
    help that told its own ('(default: 1) (default: None)')."""
    options = " ".join(_help(*words).split()).split(" -")  # one option's help a piece
    no_value = ("(default: None)", "(default: )", "(default: [])", "(default: False)")
    assert [o for o in options if any(d in o for d in no_value) or o.count("(default") > 1] == []


def _options_without_help(text: str) -> list[str]:
    """Option lines of a --help with no words of help: argparse then writes the option alone, and the next line
    is another option (help text, when it does not fit beside the option, goes on an indented line below)."""
    lines = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    bare = []
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        alone = re.fullmatch(r"  (-[-\w]+)(?: [A-Z_{][^ ]*)?(?:, --[-\w]+(?: [A-Z_{][^ ]*)?)?", line)
        if alone and not after.startswith(" " * 8):
            bare.append(alone.group(1))
    return bare


@pytest.mark.parametrize("words", HELPS)
def test_every_option_says_what_it_does(words: tuple[str, ...]) -> None:
    """`new --type`, `--cycles`, `--sync-after-round`, `--sync-after-cycle` and `event import-t --system` had no
    help: their lines said neither what they do nor their default."""
    assert _options_without_help(_help(*words)) == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_the_commands_examples(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The README promises examples in every command's --help: `tmanager fastchess --help`, which prints its
    own help, left out the EXAMPLES its module holds."""
    if name in RAW_COMMANDS:
        assert main([name, "--help"]) == 0
        shown = capsys.readouterr().out
    else:
        shown = _help(name)
    examples = getattr(importlib.import_module(COMMANDS[name]), "EXAMPLES", "")
    assert examples.strip()
    assert "examples:\n" + examples in shown


def test_event_verbs_tell_their_defaults() -> None:
    """The event verbs' help was formatted without the defaults every other command tells: `event new` hid that
    scoring is 1-0.5-0, the tie-breaks BH-C1,BH,SB and late entries' missed rounds zero."""
    told = " ".join(_help("event", "new").split())
    for default in ("(default: 1-0.5-0)", "(default: BH-C1,BH,SB)", "(default: zero)", "(default: main)"):
        assert default in told
