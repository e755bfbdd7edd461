"""The settings part rewritten for a changed model: only what changed is touched, comments stay."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from tmanager.tourney import store
from tmanager.tourney.editing import edit_setting, substitute
from tmanager.tourney.engines import Protocol
from tmanager.tourney.model import Participant, Tourney, settings_to_toml
from tmanager.tourney.settings_text import updated

ROOT = Path(__file__).resolve().parents[2]

COMMENTED = """\
# Spring gauntlet, run on the club's machine.
# Ask Ann before changing the time control.

[tourney]   # how the event is organised
name = "spring"
type = "gauntlet"
cycles = 2  # two cycles for now
  games_per_pairing = 2
tc = "40/60+0.6"    # CCRL-like
st = 1  # written as a whole number

# The engines, seed first.
[[participants]]
name = "SF"
engine = "stockfish"  # the seed
options = { Hash = 16 }  # small hash: two games at once

# Fairy-Max is the old reference.
[[participants]]
# by H. G. Muller
name = "Fairy"
engine = "fairymax"

[[participants]]
name = "Greedy"
cmd = "pyengine.py"   # ours
protocol = "uci"
args = ["--protocol", "uci", "--style", "greedy"]

"""


def tourney_of(text: str, tmp_path: Path) -> Tourney:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return store.read(path)


def rewritten(text: str, tmp_path: Path, change: Callable[[Tourney], None]) -> str:
    """The settings text after ``change``, checked to mean exactly the changed model."""
    tourney = tourney_of(text, tmp_path)
    before = settings_to_toml(tourney)
    change(tourney)
    after = settings_to_toml(tourney)
    result = updated(text, before=before, after=after)
    assert settings_to_toml(tourney_of(result, tmp_path)) == after
    return result


def changed_lines(old: str, new: str) -> list[str]:
    """The lines removed (``-``) and added (``+``), in order."""
    return [
        line
        for line in difflib.ndiff(old.splitlines(), new.splitlines())
        if line[:1] in "+-"
    ]


def comments(text: str) -> list[str]:
    return re.findall(r"#.*", text)


def test_no_change_gives_the_text_back_as_it_was(tmp_path: Path) -> None:
    assert rewritten(COMMENTED, tmp_path, lambda t: None) == COMMENTED


def test_a_changed_value_keeps_the_comment_on_its_line(tmp_path: Path) -> None:
    result = rewritten(COMMENTED, tmp_path, lambda t: edit_setting(t, "cycles", 4))
    assert changed_lines(COMMENTED, result) == [
        "- cycles = 2  # two cycles for now", "+ cycles = 4  # two cycles for now",
    ]


def test_an_indented_value_and_a_header_comment_stay(tmp_path: Path) -> None:
    result = rewritten(COMMENTED, tmp_path, lambda t: edit_setting(t, "tc", "10+0.1"))
    assert changed_lines(COMMENTED, result) == ['- tc = "40/60+0.6"    # CCRL-like', '+ tc = "10+0.1"    # CCRL-like']
    assert "[tourney]   # how the event is organised\n" in result
    assert "\n  games_per_pairing = 2\n" in result


def test_a_new_value_goes_after_the_last_key_before_the_next_sections_comment(tmp_path: Path) -> None:
    result = rewritten(COMMENTED, tmp_path, lambda t: edit_setting(t, "site", "Club"))
    assert changed_lines(COMMENTED, result) == ['+ site = "Club"']
    assert 'st = 1  # written as a whole number\nsite = "Club"\n\n# The engines, seed first.\n' in result


def test_a_value_back_to_its_default_goes_with_its_line(tmp_path: Path) -> None:
    def change(t: Tourney) -> None:
        t.participants[2] = Participant(name="Greedy", cmd="pyengine.py", protocol=Protocol.UCI)

    result = rewritten(COMMENTED, tmp_path, change)
    assert changed_lines(COMMENTED, result) == ['- args = ["--protocol", "uci", "--style", "greedy"]']


def test_a_substituted_participant_keeps_the_comments_in_its_table(tmp_path: Path) -> None:
    def change(t: Tourney) -> None:
        substitute(t, "Fairy", Participant(name="Random", engine="random-uci"), replace=True)

    result = rewritten(COMMENTED, tmp_path, change)
    assert sorted(changed_lines(COMMENTED, result)) == [
        '+ engine = "random-uci"', '+ name = "Random"', '- engine = "fairymax"', '- name = "Fairy"',
    ]
    assert comments(result) == comments(COMMENTED)


def test_a_participant_given_a_command_instead_of_a_definition(tmp_path: Path) -> None:
    def change(t: Tourney) -> None:
        substitute(t, "SF", Participant(name="SF", cmd="stockfish", protocol=Protocol.UCI), replace=False)

    result = rewritten(COMMENTED, tmp_path, change)
    assert changed_lines(COMMENTED, result) == [
        '- engine = "stockfish"  # the seed',
        "- options = { Hash = 16 }  # small hash: two games at once",
        '+ cmd = "stockfish"',
        '+ protocol = "uci"',
    ]


def test_changed_options_stay_an_inline_table(tmp_path: Path) -> None:
    def change(t: Tourney) -> None:
        old = t.participants[0]
        t.participants[0] = Participant(name=old.name, engine=old.engine, options={"Hash": 64, "Threads": 1})

    result = rewritten(COMMENTED, tmp_path, change)
    removed, added = changed_lines(COMMENTED, result)
    assert removed == "- options = { Hash = 16 }  # small hash: two games at once"
    assert re.fullmatch(r"\+ options = \{ Hash = 64, Threads = 1 ?\}  # small hash: two games at once", added)


def test_new_sections_go_at_the_end(tmp_path: Path) -> None:
    def change(t: Tourney) -> None:
        edit_setting(t, "adjudication.max_moves", 150)
        edit_setting(t, "openings.file", "book.epd")

    (tmp_path / "book.epd").write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n")
    result = rewritten(COMMENTED, tmp_path, change)
    assert result.startswith(COMMENTED.rstrip("\n"))
    assert tomllib.loads(result)["adjudication"] == {"max_moves": 150}
    assert tomllib.loads(result)["openings"]["file"] == "book.epd"


def test_participants_added_and_removed_at_the_end(tmp_path: Path) -> None:
    def grow(t: Tourney) -> None:
        t.participants.append(Participant(name="Random", engine="random-uci"))

    grown = rewritten(COMMENTED, tmp_path, grow)
    assert grown.startswith(COMMENTED.rstrip("\n"))
    assert [p["name"] for p in tomllib.loads(grown)["participants"]] == ["SF", "Fairy", "Greedy", "Random"]

    def shrink(t: Tourney) -> None:
        del t.participants[3]

    assert rewritten(grown, tmp_path, shrink).rstrip("\n") == COMMENTED.rstrip("\n")


def test_dotted_keys_and_inline_participants_keep_their_style(tmp_path: Path) -> None:
    text = """\
tourney.name = "t"  # dotted
tourney.nodes = 100
participants = [
    { name = "A", engine = "stockfish" },  # first
    { name = "B", engine = "fairymax" },
]
"""

    def change(t: Tourney) -> None:
        edit_setting(t, "nodes", 200)
        edit_setting(t, "cycles", 3)

    result = rewritten(text, tmp_path, change)
    assert "tourney.nodes = 200\n" in result and 'tourney.name = "t"  # dotted\n' in result
    assert '{ name = "A", engine = "stockfish" },  # first' in result
    assert tomllib.loads(result)["tourney"]["cycles"] == 3


@pytest.mark.parametrize("example", sorted((ROOT / "tourneys").glob("*.toml")))
def test_the_shipped_examples_keep_every_comment(example: Path, tmp_path: Path) -> None:
    text = store.split(example.read_text())[0]
    (tmp_path / "openings").symlink_to(ROOT / "tourneys" / "openings")

    def change(t: Tourney) -> None:
        edit_setting(t, "cycles", t.settings.cycles + 1)
        edit_setting(t, "adjudication.resign_score", 900)
        slot = t.participants[-1]  # the newcomer keeps the slot's conditions (an SPRT example sets nodes there)
        newcomer = Participant(name="Newcomer", engine="random-uci", tc=slot.tc, nodes=slot.nodes, depth=slot.depth)
        substitute(t, slot.name, newcomer, replace=False)

    result = rewritten(text, tmp_path, change)
    assert comments(result) == comments(text)
    assert len(changed_lines(text, result)) <= 8
