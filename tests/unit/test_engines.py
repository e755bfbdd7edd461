"""Engine definitions: read once while unchanged, read again as soon as they change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tmanager.errors import ConfigError
from tmanager.tourney.engines import load_definition

TEXT = 'cmd = "engine.py"\nprotocol = "uci"\noptions = { Hash = 1 }\n'


@pytest.fixture
def definition(tmp_path: Path) -> Path:
    path = tmp_path / "engines" / "e.toml"
    path.parent.mkdir()
    path.write_text(TEXT)
    return path


def test_an_edited_definition_is_read_again(definition: Path) -> None:
    assert load_definition(definition)["options"] == {"Hash": 1}
    definition.write_text(TEXT.replace("Hash = 1", "Hash = 64"))  # in place
    assert load_definition(definition)["options"] == {"Hash": 64}
    replacement = definition.with_suffix(".new")
    replacement.write_text(TEXT.replace("Hash = 1", "Hash = 2"))
    os.replace(replacement, definition)  # as editors save
    assert load_definition(definition)["options"] == {"Hash": 2}


def test_an_unchanged_definition_is_not_parsed_again(definition: Path) -> None:
    load_definition(definition)
    before = definition.stat()
    # Same inode, size and modification time: the stamp the cache is keyed by does not change.
    with definition.open("r+") as f:
        f.write(TEXT.replace("Hash = 1", "Hash = 9"))
    os.utime(definition, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert load_definition(definition)["options"] == {"Hash": 1}


def test_each_caller_gets_its_own_copy(definition: Path) -> None:
    first = load_definition(definition)
    first["options"]["Hash"] = 999
    first["cmd"].append("--bad")
    again = load_definition(definition)
    assert again["options"] == {"Hash": 1}
    assert again["cmd"] == ["engine.py"]  # no such file beside it: left to the PATH search


def test_a_broken_edit_is_reported(definition: Path) -> None:
    load_definition(definition)
    definition.write_text(TEXT + "cmd = \n")
    with pytest.raises(ConfigError, match=r"e\.toml: not valid TOML"):
        load_definition(definition)
    definition.unlink()
    with pytest.raises(ConfigError, match="no such engine definition file"):
        load_definition(definition)
