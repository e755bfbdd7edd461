"""A tourney file's data read into the model and validated, and the model's TOML data: in memory, no process
(the file's text, its journal and its lock are test_tourney_file.py's and test_store.py's)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tmanager.errors import ConfigError
from tmanager.tomlmap import dumps
from tmanager.tourney.parsing import from_toml
from tmanager.tourney.serialising import owned_sections_to_toml, settings_to_toml
from tmanager.tourney.validation import MAX_GAMES, validate


def data(**changes: Any) -> dict[str, Any]:
    """A two-engine round robin's parsed file, with ``changes`` (a section each)."""
    base: dict[str, Any] = {
        "tourney": {"name": "t", "games_per_pairing": 2, "nodes": 100},
        "participants": [{"name": "A", "cmd": "a", "protocol": "uci"}, {"name": "B", "cmd": "b", "protocol": "uci"}],
        "progress": {"results": "+-"},
    }
    return {**base, **changes}


def refused(tmp_path: Path, parsed: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        from_toml(parsed, tmp_path / "t.toml")
    assert caught.value.file == str(tmp_path / "t.toml")
    return caught.value


def test_a_file_reads_into_the_model_and_its_toml_data_reads_back_the_same(tmp_path: Path) -> None:
    parsed = data(faults={"A": {"crash": 1}}, sprt={"elo0": 0, "elo1": 5})
    tourney = from_toml(parsed, tmp_path / "t.toml")
    assert [p.name for p in tourney.participants] == ["A", "B"] and tourney.results == "+-"
    assert tourney.settings.nodes == 100 and tourney.faults == {"A": {"crash": 1}}
    assert tourney.sprt is not None and tourney.sprt.elo1 == 5.0
    again = tomllib.loads(dumps({**settings_to_toml(tourney), **owned_sections_to_toml(tourney)}))
    assert from_toml({**again, "progress": {"results": "+-"}}, tmp_path / "t.toml") == tourney


#: What the file holds, checked as it is read.
READ = [
    ({"tourney": {"colour": "red"}}, "tourney", "unknown key 'colour'"),
    ({"participants": {"name": "A"}}, "participants", "array of tables"),
    ({"progress": {"results": "+x"}}, "progress.results", "foreign character 'x' at game 1"),
    ({"progress": {"results": "+-=+-"}}, "progress.results", "results string has 5 games but the schedule only 2"),
    ({"swiss": {"rounds": 5}}, "swiss.rounds", "list of rounds"),
    ({"swiss": {"rounds": [[[0, 1]]]}}, "swiss", "Swiss pairings in a tourney of type 'round-robin'"),
    ({"faults": {"A": 5}}, "faults", "tables of counts"),
    ({"claims": {"x": {}}}, "claims", "not a game number"),
    ({"claims": {"²": {}}}, "claims", "not a game number"),  # '²'.isdigit(), and int('²') raises
    ({"amendments": {"²": {}}}, "amendments", "numbered from 1"),
]


def test_an_unknown_section_is_refused_with_the_sections_there_are(tmp_path: Path) -> None:
    error = refused(tmp_path, data(tourneys={}))
    assert "unknown section 'tourneys'" in error.message and error.hint is not None and "participants" in error.hint


def participants(*names: str) -> list[dict[str, str]]:
    return [{"name": name, "cmd": "e", "protocol": "uci"} for name in names]


#: What the values mean together, validated.
VALIDATED = [
    ({"participants": participants("A", "A")}, "participants", "two participants are named 'A'"),
    ({"participants": participants("A", 'B "the best"')}, "participants[1].name", "holds a quote"),
    ({"participants": participants("A", " ")}, "participants[1].name", "is empty"),
    ({"tourney": {"name": "t\nu"}}, "tourney.name", "control character (U+000A)"),
    ({"tourney": {"lease": 0}}, "tourney.lease", "must be positive"),
    ({"tourney": {"pgn_match_lines": ["("]}}, "tourney.pgn_match_lines", "not a regular expression"),
    ({"tourney": {"pgn_comment_fields": ["mood"]}}, "tourney.pgn_comment_fields", "unknown comment field 'mood'"),
    ({"tourney": {"cycles": MAX_GAMES}}, "tourney.cycles", "more than the 100,000,000 a tourney may hold"),
    ({"sprt": {"elo0": 0, "elo1": 5}, "participants": participants("A", "B", "C"), "progress": {}}, "sprt",
     "exactly 2 participants, not 3"),
    ({"participants": [{"name": "A"}, *participants("B")]}, "participants[0]", "has neither engine nor cmd"),
]


#: A tune's length is its iterations (its cycles stay 1): what was too long blamed "tourney.cycles", "at most
#: 50,000,000 cycles", and "raise cycles", a setting the tune refuses.
TUNE = {"parameters": "A, int, 5, 0, 10, 1, 0.1", "opponent": "base"}


@pytest.mark.parametrize(
    ("changes", "field", "hint"),
    [
        ({"spsa": {**TUNE, "iterations": MAX_GAMES}}, "spsa.iterations", "at most 25,000,000 iterations of 4 games"),
        ({"spsa": {**TUNE, "iterations": 1}, "progress": {"results": "+-=+-"}}, "progress.results",
         "remove the extra characters, or raise spsa.iterations"),
    ],
)
def test_a_tune_too_long_or_too_short_for_its_results_names_its_iterations(
    tmp_path: Path, changes: dict[str, Any], field: str, hint: str
) -> None:
    error = refused(tmp_path, data(**changes))
    assert error.field == field and error.hint == hint


@pytest.mark.parametrize(("changes", "where", "says"), READ + VALIDATED)
def test_a_file_is_refused_with_the_field_at_fault(
    tmp_path: Path, changes: dict[str, Any], where: str, says: str
) -> None:
    error = refused(tmp_path, data(**changes))
    assert error.field == where and says in error.message


def test_after_a_change_of_progress_only_the_progress_is_checked_again(tmp_path: Path) -> None:
    tourney = from_toml(data(), tmp_path / "t.toml")
    tourney.participants.append(tourney.participants[0])  # a duplicate name: caught only with the settings
    validate(tourney, settings=False)
    with pytest.raises(ConfigError, match="two participants"):
        validate(tourney)
    tourney.results = "+-=+-=+"
    with pytest.raises(ConfigError, match="results string has 7 games"):
        validate(tourney, settings=False)
