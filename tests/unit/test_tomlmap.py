"""The dataclass <-> TOML mapping and the one TOML writer, on data in memory."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest

from tmanager.core.spsa import TuneSettings
from tmanager.errors import ConfigError
from tmanager.tomlmap import Choice, dumps, from_table, to_table


def test_what_is_written_reads_back_as_it_was() -> None:
    document: dict[str, Any] = {
        "tourney": {"name": 'Say "hi" \\ to é\ttab\x7f', "cycles": 3, "margin": 0.1, "sync": False, "none": []},
        "faults": {"Engine A": {"time forfeit": 2}, "B.1": {"crash": 1}},
        "participants": [{"name": "A", "options": {"Hash": 16, "Move Overhead": 10, "Ponder": True}}, {"name": "B"}],
        "amendments": {"1": {"key": "sprt.elo1", "old": "5.0"}, "3": {"key": "tourney.tc", "old": ""}},
        "swiss": {"rounds": [[[0, 1], [2, 3]], [[1, 2], [3, 0]]]},
    }
    text = dumps(document, comment="made here", multiline=("rounds",), inline=("options",))
    assert tomllib.loads(text) == document
    assert text.startswith("# made here\n\n[tourney]\n")
    assert "\n[faults.\"Engine A\"]\n\"time forfeit\" = 2\n" in text  # a table of tables: each its own header
    assert "\n[amendments.3]\n" in text
    assert 'options = { Hash = 16, "Move Overhead" = 10, Ponder = true }' in text  # among values: inline
    assert "rounds = [\n  [[0, 1], [2, 3]],\n  [[1, 2], [3, 0]],\n]" in text  # one element a line
    assert text.count("[[participants]]") == 2


@dataclass(frozen=True)
class Sample:
    name: str
    kind: Literal["a", "b"] = "a"
    count: int = 0
    share: float | None = None
    pairs: tuple[int, int] = (0, 0)
    options: Mapping[str, int | str] = field(default_factory=dict)


def test_a_table_reads_into_its_dataclass_and_back() -> None:
    table = {"name": "x", "kind": "b", "count": 3, "share": 1, "pairs": [1, 2], "options": {"Hash": 16}}
    sample = from_table(Sample, table, "sample", None)
    assert sample == Sample("x", "b", 3, 1.0, (1, 2), {"Hash": 16})
    assert to_table(sample, keep_defaults=False) == {**table, "share": 1.0}
    assert to_table(Sample("y"), keep_defaults=False) == {"name": "y"}


@dataclass(frozen=True)
class Numbered:
    boards: dict[int, int] = field(default_factory=dict)
    lineups: dict[int, list[int]] | None = None


@pytest.mark.parametrize("numbered", [Numbered(), Numbered({}, {}), Numbered({3: 1, 1: 2}, {2: [1, 4]})])
def test_numbered_values_empty_or_not_are_written_as_pairs_that_read_back(numbered: Numbered) -> None:
    table = to_table(numbered, keep_defaults=True)
    assert table["boards"] == [[k, v] for k, v in numbered.boards.items()]
    text = dumps({"numbered": table})
    assert from_table(Numbered, tomllib.loads(text)["numbered"], "numbered", None) == numbered


@pytest.mark.parametrize(("table", "where", "says"), [
    ({"name": "x", "kind": "c"}, "sample.kind", "'c' is not one of 'a', 'b'"),
    ({"name": "x", "count": -1}, "sample.count", "cannot be negative"),
    ({"name": "x", "count": True}, "sample.count", "must be int"),
    ({"name": "x", "share": "much"}, "sample.share", "must be a number"),
    ({"name": "x", "pairs": [1]}, "sample.pairs", "list of 2 values"),
    ({"name": "x", "options": {"Hash": [1]}}, "sample.options", "table of strings, whole numbers or booleans"),
    ({"name": "x\0"}, "sample.name", "NUL"),
    ({"name": "x", "colour": "red"}, "sample", "unknown key 'colour'"),
    ({}, "sample", "missing required key"),
])
def test_a_wrong_value_is_named_with_its_key(table: dict[str, Any], where: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        from_table(Sample, table, "sample", None)
    assert caught.value.field == where and says in caught.value.message


def test_a_missing_key_says_to_add_it() -> None:
    """A hand-written [spsa] without iterations said 'spsa: missing required key 'iterations'', and ``tmanager
    serve`` of an event file without its name "event: missing required key 'name'": no way out, against the
    one-line form of every refusal."""
    with pytest.raises(ConfigError) as caught:
        from_table(Sample, {}, "sample", Path("s.toml"))
    assert str(caught.value) == "s.toml: sample: missing required key 'name' (add it to sample: name = …)"
    with pytest.raises(ConfigError) as caught:
        from_table(TuneSettings, {"seed": 1}, "spsa", None)
    assert str(caught.value) == "spsa: missing required keys 'parameters' and 'iterations' (add them to spsa: " \
        "parameters = …, iterations = …)"


@pytest.mark.parametrize(("share", "says"), [
    ("much", "must be a number, not 'much'"),
    (True, "must be a number, not True"),
    (float("nan"), "must be a number, not nan"),
    (float("inf"), "must be a number, not inf"),
    (1e308, "1e+308 is too large (a number within ±1e+300)"),
    (-(10**400), f"-1{'0' * 48}…000000 is too large (a number within ±1e+300)"),
])
def test_a_number_out_of_a_floats_reach_is_told_too_large_not_no_number(share: object, says: str) -> None:
    """1e308 in a float setting (``spsa.alpha = 1e308``) was refused as "must be a number, not 1e+308"."""
    with pytest.raises(ConfigError) as caught:
        from_table(Sample, {"name": "x", "share": share}, "sample", None)
    assert caught.value.field == "sample.share" and caught.value.message == says
    assert from_table(Sample, {"name": "x", "share": 1e300}, "sample", None).share == 1e300  # within, as it says


class Shape(Choice):
    NONE = ""
    ROUND = "round"
    SQUARE = "square"


@dataclass(frozen=True)
class Drawn:
    shape: Shape = Shape.NONE


def test_a_choice_reads_as_its_member_and_is_written_as_its_word() -> None:
    drawn = from_table(Drawn, {"shape": "round"}, "drawn", None)
    assert drawn.shape is Shape.ROUND
    assert to_table(drawn, keep_defaults=False) == {"shape": "round"}
    assert dumps({"drawn": to_table(drawn, keep_defaults=False)}) == '[drawn]\nshape = "round"\n'


@pytest.mark.parametrize("value", ["oval", "ROUND", 1, ["round"]])
def test_a_wrong_choice_is_refused_as_a_literal_of_its_words(value: object) -> None:
    with pytest.raises(ConfigError) as caught:
        from_table(Drawn, {"shape": value}, "drawn", None)
    assert caught.value.field == "drawn.shape"
    assert caught.value.message == f"{value!r} is not one of 'round', 'square'"


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("A, int, 1, 0, 2, 1, 0.1\nB, float, 0.5, 0, 1, 0.1, 0.1\n", True),
        ("two\nlines with a \\ and 'quotes'\t", True),
        ("ends in a quote\n'", False),
        ("holds ''' its own closing quotes\n", False),
        ("a carriage\r\nreturn", False),
        ("one line", False),
    ],
)
def test_text_of_several_lines_is_written_as_pasted_when_it_can_be(text: str, literal: bool) -> None:
    written = dumps({"spsa": {"parameters": text}})
    assert tomllib.loads(written) == {"spsa": {"parameters": text}}
    assert (f"parameters = '''\n{text}'''" in written) is literal
